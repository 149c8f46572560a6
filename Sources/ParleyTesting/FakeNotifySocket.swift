import Foundation
import Glibc

/// A fake `NOTIFY_SOCKET`: a datagram socket the test reads what the notifier sent from.
public final class FakeNotifySocket: Sendable {
    /// Where it listens (the value for NOTIFY_SOCKET).
    public let path: String
    let fd: Int32

    /// A socket bound to a fresh path in the temporary directory.
    public init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("notify-\(UUID().uuidString.prefix(8))").path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw BindError(path: path, errno: errno) }
        // Every read is bounded: 10 s at most.
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// The next datagram, nil after the receive timeout.
    public func next() -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        return count < 0 ? nil : String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// `next()` on a thread of its own: the waiting test holds no thread of the cooperative
    /// pool, which the notifier's pinging task needs (on 2 cores, with the suite running, a
    /// test blocking one of the two pool threads starved it past the receive timeout).
    public func nextOffPool() async -> String? {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: self.next()) }.start()
        }
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// The socket could not be bound.
    public struct BindError: Error, CustomStringConvertible {
        public var path: String
        public var errno: Int32
        public var description: String { "binding the fake notify socket \(path) failed: errno \(errno)" }
    }
}
