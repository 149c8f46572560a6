import Foundation
import Glibc
import Synchronization

/// A closed-loop HTTP/1.1 load: `connections` keep-alive connections, each on a thread of its
/// own sending one GET at a time and reading the whole answer before the next. Every answer
/// is checked (status 200 and `check` on the body): a wrong one fails the run.
struct HTTPLoad {
    var port: Int
    var path: String
    var connections: Int
    var duration: Duration
    /// True when a body is the right answer (bytes: a Foundation string search per answer
    /// would cost the load more than the server spends answering, on this 2-core machine).
    var check: @Sendable (ArraySlice<UInt8>) -> Bool

    struct Result {
        var requests: Int
        var seconds: Double
        var perSecond: Double { Double(requests) / seconds }
    }

    func run() throws -> Result {
        let total = Atomic<Int>(0)
        let failure = Mutex<String?>(nil)
        let deadline = Date().addingTimeInterval(duration.timeInterval)
        let started = Date()
        let done = DispatchGroup()
        for _ in 0..<connections {
            done.enter()
            let thread = Thread { [self] in
                defer { done.leave() }
                do {
                    let count = try drive(until: deadline)
                    total.add(count, ordering: .relaxed)
                } catch {
                    failure.withLock { $0 = $0 ?? "\(error)" }
                }
            }
            thread.start()
        }
        // Bounded: every connection stops at the deadline or on a 10 s receive timeout.
        guard done.wait(timeout: .now() + duration.timeInterval + 30) == .success else { throw BenchFailure("\(path): the load did not end") }
        if let failure = failure.withLock({ $0 }) { throw BenchFailure("\(path): \(failure)") }
        return Result(requests: total.load(ordering: .relaxed), seconds: Date().timeIntervalSince(started))
    }

    /// One connection's requests until `deadline`; how many were answered right.
    private func drive(until deadline: Date) throws -> Int {
        let fd = try Self.connectLoopback(port: port)
        defer { close(fd) }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var pending: [UInt8] = []
        var count = 0
        while Date() < deadline {
            guard send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { throw BenchFailure("send: errno \(errno)") }
            let (status, _, body) = try Self.readAnswer(fd, &buffer, &pending)
            guard status == 200, check(body) else {
                throw BenchFailure("answer \(count + 1) was wrong: \(status) \(String(decoding: body.prefix(200), as: UTF8.self))")
            }
            count += 1
        }
        return count
    }

    /// A TCP connection to `127.0.0.1:port` without Nagle's delay, every read bounded by 10 s.
    static func connectLoopback(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchFailure("socket: errno \(errno)") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw BenchFailure("connect to port \(port): errno \(errno)")
        }
        return fd
    }

    /// Reads one answer (headers and a `Content-Length` body): its status, head and body; what
    /// came after it stays in `pending`.
    static func readAnswer(_ fd: Int32, _ buffer: inout [UInt8], _ pending: inout [UInt8]) throws -> (Int, String, ArraySlice<UInt8>) {
        // Bounded: each recv waits at most 10 s, and an answer over 16 MB is an error.
        while true {
            if let end = Self.headerEnd(pending) {
                let head = String(decoding: pending[..<end], as: UTF8.self)
                let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
                let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                if pending.count >= end + 4 + length {
                    let body = pending[(end + 4)..<(end + 4 + length)]
                    pending.removeFirst(end + 4 + length)
                    return (status, head, body)
                }
            }
            guard pending.count < 16 << 20 else { throw BenchFailure("answer over 16 MB") }
            let got = recv(fd, &buffer, buffer.count, 0)
            guard got > 0 else { throw BenchFailure(got == 0 ? "connection closed by the server" : "recv: errno \(errno)") }
            pending.append(contentsOf: buffer[..<got])
        }
    }

    private static func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    /// Whether `bytes` holds `needle`, compared as bytes.
    static func contains(_ bytes: ArraySlice<UInt8>, _ needle: String) -> Bool {
        bytes.firstRange(of: Array(needle.utf8)) != nil
    }
}
