import Foundation
import Glibc

/// A plain TCP connection to 127.0.0.1, for what a well-behaved client would not send.
/// Blocking, every call bounded by the socket's send and receive timeouts: use it inside
/// `offPool`, never on the cooperative pool, whose few threads the server's handlers need.
public struct RawConnection: Sendable {
    public let fd: Int32

    public init(port: Int, timeoutSeconds: Int = 5) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else {
            let code = errno
            Glibc.close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .ECONNREFUSED)
        }
        self.fd = fd
    }

    /// Sends all of `bytes`; false once the server has closed or reset the connection.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        // Bounded: each turn sends at least a byte, or returns.
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Reads until the server closes the connection, `limit` bytes, or the receive timeout:
    /// what came, and whether the server closed (or reset) the connection.
    public func readToEnd(limit: Int = 1 << 20) -> (bytes: [UInt8], closed: Bool) {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while bytes.count < limit {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count > 0 {
                bytes += buffer[0..<count]
                continue
            }
            let closed = count == 0 || errno == ECONNRESET || errno == EPIPE
            return (bytes, closed)
        }
        return (bytes, false)
    }

    /// Reads one answer with a `Content-Length` (what this server always sends): its status
    /// and body; nil if the connection ended or timed out first. Reads no further than the
    /// answer's end only when no other bytes follow it (no pipelining here).
    public func readAnswer() -> (status: Int, body: String)? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var headEnd: Int?
        var length = 0
        // Bounded by the receive timeout per call and by 1 MiB in all.
        while bytes.count < 1 << 20 {
            if headEnd == nil, let end = bytes.firstRange(of: [13, 10, 13, 10])?.upperBound {
                headEnd = end
                let head = String(decoding: bytes[..<end], as: UTF8.self).lowercased()
                let field = head.components(separatedBy: "\r\n").first { $0.hasPrefix("content-length:") }
                length = field.flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            }
            if let headEnd, bytes.count >= headEnd + length {
                let statusLine = String(decoding: bytes[..<headEnd], as: UTF8.self).prefix { $0 != "\r" }
                guard let status = statusLine.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return nil }
                return (status, String(decoding: bytes[headEnd..<(headEnd + length)], as: UTF8.self))
            }
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            bytes += buffer[0..<count]
        }
        return nil
    }

    public func close() { Glibc.close(fd) }
}

/// Runs blocking `body` (socket calls, `HTTPServer.stop()`) on a thread of its own rather than
/// on the cooperative pool: with two cores the pool has two threads, which the server's
/// handler tasks need while a test waits on a socket.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// This process's resident memory (`VmRSS` in /proc/self/status), in KiB.
public func residentKilobytes() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}
