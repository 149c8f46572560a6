import Foundation
import Glibc
import Synchronization

/// A minimal HTTP/1.1 server on 127.0.0.1 (an ephemeral port) for testing HTTP clients with
/// real sockets: one request per connection, answered by `handler`, then closed.
final class TinyHTTPServer: Sendable {
    typealias Handler = @Sendable (_ path: String) -> (status: Int, body: String)

    let port: UInt16
    private let listener: Int32
    private let handler: Handler
    private let paths = Mutex<[String]>([])

    init(handler: @escaping Handler) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var reuse: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        listener = fd
        self.handler = handler
        Thread { [self] in acceptLoop() }.start()
    }

    /// The request paths (with query) received so far, in order.
    var requests: [String] { paths.withLock { $0 } }

    /// Stops accepting: the accept loop ends when the listening socket shuts down.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    deinit { stop() }

    private func acceptLoop() {
        // Bounded by the socket: accept fails once `stop()` closed it.
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            serve(client)
        }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var request = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        // Read until the end of the headers (requests here have no body), at most 64 KiB.
        while request.count < 65_536 {
            let count = recv(client, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            request.append(contentsOf: buffer[0..<count])
            if String(decoding: request, as: UTF8.self).contains("\r\n\r\n") { break }
        }
        let text = String(decoding: request, as: UTF8.self)
        let requestLine = text.split(separator: "\r\n").first.map(String.init) ?? ""
        let parts = requestLine.split(separator: " ")
        let path = parts.count >= 2 ? String(parts[1]) : "/"
        paths.withLock { $0.append(path) }
        let (status, body) = handler(path)
        let bodyBytes = Array(body.utf8)
        let head = "HTTP/1.1 \(status) X\r\nContent-Type: application/json\r\nContent-Length: \(bodyBytes.count)\r\nConnection: close\r\n\r\n"
        let response = Array(head.utf8) + bodyBytes
        var sent = 0
        while sent < response.count {
            let count = response[sent...].withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return }
            sent += count
        }
    }
}
