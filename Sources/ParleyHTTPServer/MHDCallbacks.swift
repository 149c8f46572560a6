import CMicroHTTPD
import Foundation
import Glibc

/// libmicrohttpd's access handler, on the MHD thread. For each request it is called once the
/// headers are in (`con_cls` still nil), once per piece of body, once the whole request is
/// in, and, after the handler's task resumed the connection, once more to queue the answer.
/// It never waits for Swift: the handler runs in a task while the connection is suspended.
let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, upload, uploadSize, perRequest in
    guard let cls, let connection, let uploadSize, let perRequest else { return .NO }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    guard let pointer = perRequest.pointee else {
        let state = RequestState(context: context)
        perRequest.pointee = Unmanaged.passRetained(state).toOpaque()
        return context.headersArrived(state, on: connection)
    }
    let state = Unmanaged<RequestState>.fromOpaque(pointer).takeUnretainedValue()
    if uploadSize.pointee > 0 {
        let piece = UnsafeRawBufferPointer(start: upload, count: uploadSize.pointee)
        uploadSize.pointee = 0
        return context.bodyArrived(piece, for: state, on: connection)
    }
    guard let url, let method else { return .NO }
    return context.requestArrived(state, on: connection, path: url, method: method)
}

/// libmicrohttpd's accept policy, for each accepted connection: refused (closed at once)
/// when `maxConnections` are open.
let acceptPolicy: MHD_AcceptPolicyCallback = { cls, _, _ in
    guard let cls else { return .NO }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    return context.openConnections.load(ordering: .relaxed) < context.maxConnections ? .YES : .NO
}

/// libmicrohttpd's connection callback (`MHD_OPTION_NOTIFY_CONNECTION`): counts the open ones.
let connectionChanged: MHD_NotifyConnectionCallback = { cls, _, _, change in
    guard let cls else { return }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    context.openConnections.add(change == .CONNECTION_NOTIFY_STARTED ? 1 : -1, ordering: .relaxed)
}

/// libmicrohttpd's completion callback (`MHD_OPTION_NOTIFY_COMPLETED`): the request is over,
/// however it ended; releases its state.
let requestCompleted: MHD_RequestCompletedCallback = { _, _, perRequest, _ in
    guard let perRequest, let pointer = perRequest.pointee else { return }
    perRequest.pointee = nil
    Unmanaged<RequestState>.fromOpaque(pointer).release()
}

extension ServerContext {
    /// The headers are in, no body byte read: a declared body over the limit is refused now,
    /// before it is read (libmicrohttpd then skips it and closes the connection).
    func headersArrived(_ state: RequestState, on connection: OpaquePointer) -> MHD_Result {
        guard let declared = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length") else { return .YES }
        // libmicrohttpd has checked that it is a number: one Int cannot hold is over any limit.
        let length = Int(String(cString: declared)) ?? .max
        guard length <= maxBodyBytes else {
            return MHDAnswer(tooLarge(closing: true))?.queue(on: connection) ?? .NO
        }
        state.body.reserveCapacity(min(length, 1 << 16))
        return .YES
    }

    /// A piece of the body. A streamed (chunked) body that passes the limit is refused at
    /// once; the pieces before it are all that was kept.
    func bodyArrived(_ piece: UnsafeRawBufferPointer, for state: RequestState, on connection: OpaquePointer) -> MHD_Result {
        guard state.body.count + piece.count <= maxBodyBytes else {
            state.body = Data()
            refuseStreamedBody(on: connection)
            return .NO
        }
        state.body.append(piece.assumingMemoryBound(to: UInt8.self))
        return .YES
    }

    /// The whole request is in, or (`state.started`) the connection was resumed with its answer.
    func requestArrived(_ state: RequestState, on connection: OpaquePointer, path: UnsafePointer<CChar>,
                        method: UnsafePointer<CChar>) -> MHD_Result {
        if state.started { return queue(takeAnswer(of: state), on: connection) }
        state.started = true
        let request = HTTPServerRequest(method: String(cString: method), path: String(cString: path),
                                        query: Self.values(of: connection, .GET_ARGUMENT_KIND, collectQueryArgument),
                                        headers: Self.values(of: connection, .HEADER_KIND, collectHeader),
                                        body: state.body, remoteAddress: parley_mhd_client_address(connection).map(ipAddressText) ?? "")
        state.body = Data()
        if let immediate, let answer = immediate(request) { return queue(MHDAnswer(answer), on: connection) }
        return start(state, request, on: connection) ? .YES : .NO
    }

    /// The 413 answer; `closing` asks libmicrohttpd to close the connection after it.
    func tooLarge(closing: Bool) -> HTTPServerResponse {
        var answer = HTTPServerResponse.text(413, "the request body is larger than \(maxBodyBytes) bytes")
        if closing { answer.headers.append((name: "Connection", value: "close")) }
        return answer
    }

    /// A streamed body passed the limit. libmicrohttpd 0.9.75 takes an answer only before the
    /// body or once all of it is in (`MHD_queue_response` refuses one in between), and a
    /// client may stream without end. So the 413 is written on the socket here, in one
    /// non-blocking send, and the access handler returns MHD_NO: libmicrohttpd shuts the
    /// socket down (after those bytes) and closes it. Nothing else of this request has been
    /// written (a `100 Continue`, if any, went out whole before the body), so the send buffer
    /// is empty and the answer fits. MSG_NOSIGNAL: the client may be gone.
    private func refuseStreamedBody(on connection: OpaquePointer) {
        let fd = parley_mhd_socket(connection)
        guard fd >= 0 else { return }
        let answer = tooLarge(closing: true)
        var head = "HTTP/1.1 413 Content Too Large\r\nContent-Length: \(answer.body.count)\r\n"
        for header in answer.headers { head += "\(header.name): \(header.value)\r\n" }
        let bytes = Data((head + "\r\n").utf8) + answer.body
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
    }

    /// The values of one kind (headers, query arguments) gathered by `iterator` into a dictionary.
    private static func values(of connection: OpaquePointer, _ kind: MHD_ValueKind, _ iterator: MHD_KeyValueIteratorN) -> [String: String] {
        var values: [String: String] = [:]
        values.reserveCapacity(Int(max(0, MHD_get_connection_values_n(connection, kind, nil, nil))))
        withUnsafeMutablePointer(to: &values) { _ = MHD_get_connection_values_n(connection, kind, iterator, $0) }
        return values
    }
}

/// `bytes` as a String (invalid UTF-8 repaired).
private func text(_ bytes: UnsafePointer<CChar>?, _ count: Int) -> String {
    String(decoding: UnsafeRawBufferPointer(start: bytes, count: bytes == nil ? 0 : count), as: UTF8.self)
}

/// Collects one header: the name lower-cased (ASCII, as HTTP names are), a repeated one's
/// values joined with ", ".
private let collectHeader: MHD_KeyValueIteratorN = { values, _, key, keyCount, value, valueCount in
    guard let values, let key else { return .YES }
    let headers = values.assumingMemoryBound(to: [String: String].self)
    let name = String(decoding: UnsafeRawBufferPointer(start: key, count: keyCount).lazy.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 },
                      as: UTF8.self)
    let added = text(value, valueCount)
    if let earlier = headers.pointee[name] { headers.pointee[name] = earlier + ", " + added } else { headers.pointee[name] = added }
    return .YES
}

/// Collects one query argument, already percent-decoded by libmicrohttpd; a repeated one
/// keeps its last value.
private let collectQueryArgument: MHD_KeyValueIteratorN = { values, _, key, keyCount, value, valueCount in
    guard let values, let key else { return .YES }
    values.assumingMemoryBound(to: [String: String].self).pointee[text(key, keyCount)] = text(value, valueCount)
    return .YES
}
