import CMicroHTTPD

/// A streamed answer's body as a libmicrohttpd response of unknown size (sent chunked to an
/// HTTP/1.1 client; to an HTTP/1.0 one until the connection closes), read through a content
/// reader callback.
///
/// libmicrohttpd 0.9.75 calls the reader on its thread whenever the connection can take more
/// body. Returning 0 means "nothing yet", and with an internal polling thread it would ask
/// again at once, forever (the connection stays in epoll's ready list): a busy loop. So with
/// nothing to send the reader suspends the connection first — `MHD_suspend_connection`'s
/// documentation names the content reader as one of the two places it may be called from,
/// and in 0.9.75 that is so: the reader runs on the polling thread within
/// `MHD_connection_handle_idle`, as the access handler does, holding only the response's
/// mutex, while suspending takes the daemon's cleanup mutex. A suspended connection is out of
/// the epoll set and out of the timeout lists: an idle stream costs nothing and never times
/// out. A write resumes it; libmicrohttpd marks it ready and asks the reader again.
///
/// The response holds a retained reference to the stream, released by the free callback,
/// which libmicrohttpd calls when it destroys the response: after the answer ended or its
/// connection closed, before the socket is closed, outside its own locks.
enum MHDStreamReader {
    /// `MHD_CONTENT_READER_END_OF_STREAM` and `_END_WITH_ERROR` (casts in C; Swift does not import them).
    static let endOfStream = -1
    static let endWithError = -2

    /// A response reading from `stream`; nil if libmicrohttpd could not allocate it.
    static func response(for stream: HTTPServerStream) -> OpaquePointer? {
        let retained = Unmanaged.passRetained(stream)
        // 16 KiB: the buffer libmicrohttpd reads into for HTTP/1.0 (chunked answers are read
        // into the connection's own write buffer).
        guard let response = MHD_create_response_from_callback(UInt64.max, 16 << 10, read, retained.toOpaque(), release) else {
            retained.release()
            return nil
        }
        return response
    }

    private static let read: MHD_ContentReaderCallback = { cls, _, buffer, max in
        guard let cls, let buffer else { return endWithError }
        let stream = Unmanaged<HTTPServerStream>.fromOpaque(cls).takeUnretainedValue()
        return stream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: max))
    }

    private static let release: MHD_ContentReaderFreeCallback = { cls in
        guard let cls else { return }
        let stream = Unmanaged<HTTPServerStream>.fromOpaque(cls)
        stream.takeUnretainedValue().released()
        stream.release()
    }
}
