import Foundation
import Glibc
import ParleyHosting
import ParleyTesting
import Testing

/// A fake `NOTIFY_SOCKET`: a datagram socket the test reads what the notifier sent from.
final class FakeNotifySocket: Sendable {
    let path: String
    let fd: Int32

    init() throws {
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
        try #require(bound == 0, "bind \(path): errno \(errno)")
        // Every read is bounded: 10 s at most.
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// The next datagram, nil after the receive timeout.
    func next() -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        return count < 0 ? nil : String(decoding: buffer[..<count], as: UTF8.self)
    }

    deinit {
        close(fd)
        unlink(path)
    }
}

@Suite struct SystemdNotifierTests {
    @Test func readyStoppingAndWatchdogPingsReachTheSocket() async throws {
        let socket = try FakeNotifySocket()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "20000"])
        #expect(notifier.watchdogInterval == .milliseconds(10))
        notifier.ready(status: "2 bots running")
        #expect(socket.next() == "READY=1\nSTATUS=2 bots running")
        let pinging = Task { await notifier.feedWatchdog() }
        #expect(socket.next() == "WATCHDOG=1")
        #expect(socket.next() == "WATCHDOG=1")
        pinging.cancel()
        await pinging.value
        notifier.stopping()
        // Pings already sent may come first; STOPPING follows them.
        var last = socket.next()
        for _ in 0..<10 where last == "WATCHDOG=1" { last = socket.next() }
        #expect(last == "STOPPING=1\nSTATUS=shutting down")
    }

    @Test func withoutASocketOrWithAnotherProcesssWatchdogNothingIsSent() {
        #expect(!SystemdNotifier(environment: [:]).notify("READY=1"))
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "1000"]).watchdogInterval == nil)
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": "/x", "WATCHDOG_USEC": "1000", "WATCHDOG_PID": "1"]).watchdogInterval == nil)
        #expect(!SystemdNotifier(environment: ["NOTIFY_SOCKET": "/nonexistent/socket"]).notify("READY=1"))
    }
}
