import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// systemd's notify protocol (`Type=notify`): datagrams like `READY=1` sent to the socket named
/// by `NOTIFY_SOCKET`, and `WATCHDOG=1` pings while `WATCHDOG_USEC` asks for them. Written
/// against the protocol itself (a few lines of socket calls) rather than libsystemd: the
/// protocol is stable and documented (sd_notify(3)), and it keeps a dependency away.
/// Without `NOTIFY_SOCKET` (not started by systemd) every call does nothing.
public struct SystemdNotifier: Sendable {
    /// The socket's path (`@…`: Linux's abstract namespace); nil: not under systemd.
    public let socketPath: String?
    /// How often to ping the watchdog (half of `WATCHDOG_USEC`); nil: no watchdog.
    public let watchdogInterval: Duration?

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` from `environment`.
    public init(environment: [String: String]) {
        let path = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        socketPath = path
        // A watchdog meant for another process (WATCHDOG_PID set and not ours) is not ours to feed.
        let forUs = environment["WATCHDOG_PID"].map { Int32($0) == getpid() } ?? true
        if path != nil, forUs, let usec = environment["WATCHDOG_USEC"].flatMap(Int64.init), usec > 0 {
            watchdogInterval = .microseconds(usec / 2)
        } else {
            watchdogInterval = nil
        }
    }

    /// Sends `state` (newline-separated `KEY=value` lines); false when not under systemd or the
    /// socket refused it (systemd gone: nothing to do about it).
    @discardableResult
    public func notify(_ state: String) -> Bool {
        guard let socketPath else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(socketPath.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            for (index, byte) in bytes.enumerated() { path[index] = byte }
        }
        // An abstract name's length counts exactly its bytes; a path's includes its terminator.
        let length = MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == 0 ? 0 : 1)
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                sendto(fd, message, message.count, Int32(MSG_NOSIGNAL), socketAddress, socklen_t(length))
            }
        }
        return sent == message.count
    }

    /// The host is up: every bot connected (`READY=1`, with a status line).
    public func ready(status: String) { notify("READY=1\nSTATUS=\(status)") }

    /// The host is shutting down.
    public func stopping() { notify("STOPPING=1\nSTATUS=shutting down") }

    /// Pings the watchdog every `watchdogInterval` until cancelled (nothing without one). The
    /// ping comes from a task on the Swift runtime's threads: a process whose tasks no longer
    /// run stops pinging, and systemd restarts it.
    public func feedWatchdog() async {
        guard let interval = watchdogInterval else { return }
        while !Task.isCancelled {
            notify("WATCHDOG=1")
            do { try await Task.sleep(for: interval) } catch { return }
        }
    }
}
