import CMicroHTTPD

/// A handler's answer made into a libmicrohttpd response, the body copied into it (or, for a
/// stream, read from it as it is written: `MHDStreamReader`). Made on the handler's thread, not
/// the MHD one: that thread serves every connection, its time goes to sockets. Not `Sendable`:
/// it is handed over under the server's lock.
struct MHDAnswer {
    let response: OpaquePointer
    let status: UInt32
    /// The streamed body, bound to its connection when queued (`ServerContext.queue`).
    let stream: HTTPServerStream?

    /// Nil if libmicrohttpd could not allocate it.
    init?(_ answer: HTTPServerResponse) {
        let made = if let stream = answer.stream {
            MHDStreamReader.response(for: stream)
        } else {
            answer.body.withUnsafeBytes { bytes in
                MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
            }
        }
        guard let made else { return nil }
        // MHD_NO: a name or value libmicrohttpd will not send (a line break, say); left out.
        for header in answer.headers { _ = MHD_add_response_header(made, header.name, header.value) }
        response = made
        stream = answer.stream
        // libmicrohttpd refuses a status outside 100...999; 1xx are not final answers.
        status = UInt32((200...999).contains(answer.status) ? answer.status : 500)
    }

    /// Queues it on `connection` and lets go of this reference (a queued response keeps its own).
    func queue(on connection: OpaquePointer) -> MHD_Result {
        defer { discard() }
        return MHD_queue_response(connection, status, response)
    }

    /// Lets go of it unsent (a stream then ends `.disconnected`).
    func discard() {
        MHD_destroy_response(response)
    }
}
