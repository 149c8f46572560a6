import Foundation
import Glibc
import Synchronization

/// A tiny HTTP/1.1 server on 127.0.0.1 (an ephemeral port) for testing HTTP clients with real
/// sockets: it records each request's path and headers and answers it with `handler`, one
/// request per connection, then closed. For what a real server cannot be made to do on cue
/// (a redirect elsewhere, a bad answer) and for clients of the user's own systems.
public final class LoopbackHTTPServer: Sendable {
    /// One request as received.
    public struct Request: Sendable {
        /// The path with its query.
        public var path: String
        /// Header names lowercased.
        public var headers: [String: String]
    }

    /// What the server answers (a JSON body unless `headers` say otherwise).
    public struct Answer: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: String

        /// An answer.
        public init(status: Int, headers: [String: String] = [:], body: String = "") {
            self.status = status
            self.headers = headers
            self.body = body
        }
    }

    public typealias Handler = @Sendable (Request) -> Answer

    /// The port it listens on.
    public let port: UInt16
    private let listener: Int32
    private let handler: Handler
    private let received = Mutex<[Request]>([])

    /// Starts listening at once.
    public init(handler: @escaping Handler) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
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

    /// `http://127.0.0.1:<port>`.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The requests received so far, in order.
    public var requests: [Request] { received.withLock { $0 } }

    /// Stops accepting: the accept loop ends when the listening socket shuts down.
    public func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    deinit { stop() }

    private func acceptLoop() {
        // Ends when `stop()` closes the listening socket and accept fails.
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
        var bytes = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        // The requests here have no body: read to the end of the headers, at most 64 KiB.
        while bytes.count < 65_536, !String(decoding: bytes, as: UTF8.self).contains("\r\n\r\n") {
            let count = recv(client, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        let lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines.first?.split(separator: " ") ?? []
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let request = Request(path: requestLine.count >= 2 ? String(requestLine[1]) : "/", headers: headers)
        received.withLock { $0.append(request) }
        let answer = handler(request)
        let body = Array(answer.body.utf8)
        var head = "HTTP/1.1 \(answer.status) X\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
        for (name, value) in answer.headers { head += "\(name): \(value)\r\n" }
        let response = Array((head + "\r\n").utf8) + body
        var sent = 0
        while sent < response.count {
            let count = response[sent...].withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return }
            sent += count
        }
    }
}
