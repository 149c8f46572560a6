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
        /// `GET`, `POST`, …
        public var method = ""
        /// The body (as long as its `Content-Length` says, at most 1 MiB).
        public var body = ""
    }

    /// What the server answers (a JSON body unless `headers` say otherwise).
    public struct Answer: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: String
        /// Sends `body` this many times in a row (`.max`: until the client hangs up), for
        /// answers larger than a test would want to hold.
        public var repeats: Int
        /// False: no `Content-Length`, the body runs to the end of the connection.
        public var sendsLength: Bool

        /// An answer.
        public init(status: Int, headers: [String: String] = [:], body: String = "", repeats: Int = 1, sendsLength: Bool = true) {
            self.status = status
            self.headers = headers
            self.body = body
            self.repeats = max(0, repeats)
            self.sendsLength = sendsLength
        }
    }

    public typealias Handler = @Sendable (Request) -> Answer

    /// The port it listens on.
    public let port: UInt16
    private let listener: Int32
    private let handler: Handler
    private let received = Mutex<[Request]>([])
    private let stopped = Atomic<Bool>(false)

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

    /// Stops accepting: the accept loop ends when the listening socket shuts down, and it
    /// closes the socket itself. Closing it here would free the descriptor's number while the
    /// loop may still be about to call `accept` on it (it was serving a request): a server
    /// another test opens meanwhile can take the number, and this loop would take that
    /// server's requests. Once only: tests call it and `deinit` calls it again.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
    }

    deinit { stop() }

    private func acceptLoop() {
        defer { close(listener) }
        // Ends when `stop()` shuts the listening socket down and accept fails.
        while !stopped.load(ordering: .acquiring) {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            serve(client)
        }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // A client that stops reading must not hold this thread (and the next tests) forever.
        setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var bytes = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        // Read to the end of the headers (at most 64 KiB), then the body its length announces.
        func headEnd() -> Int? {
            bytes.indices.dropLast(3).first { bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10 }
        }
        while bytes.count < 65_536, headEnd() == nil {
            let count = recv(client, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        let end = headEnd() ?? bytes.count
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines.first?.split(separator: " ") ?? []
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let bodyStart = min(bytes.count, end + 4)
        let length = min(1 << 20, headers["content-length"].flatMap { Int($0) } ?? 0)
        while bytes.count - bodyStart < length {
            let count = recv(client, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        var request = Request(path: requestLine.count >= 2 ? String(requestLine[1]) : "/", headers: headers)
        request.method = requestLine.first.map(String.init) ?? ""
        request.body = String(decoding: bytes[bodyStart...].prefix(length), as: UTF8.self)
        received.withLock { $0.append(request) }
        let answer = handler(request)
        let body = Array(answer.body.utf8)
        var head = "HTTP/1.1 \(answer.status) X\r\nContent-Type: application/json\r\nConnection: close\r\n"
        if answer.sendsLength {
            let (length, overflow) = body.count.multipliedReportingOverflow(by: answer.repeats)
            head += "Content-Length: \(overflow ? Int.max : length)\r\n"
        }
        for (name, value) in answer.headers { head += "\(name): \(value)\r\n" }
        guard sendAll(Array((head + "\r\n").utf8), to: client) else { return }
        // Bounded by `repeats`, or for `.max` by the client hanging up (the send fails).
        for _ in 0..<answer.repeats where !sendAll(body, to: client) { return }
    }

    /// False once the client is gone.
    private func sendAll(_ bytes: [UInt8], to client: Int32) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }
}
