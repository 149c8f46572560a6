import Foundation
import Glibc
import ParleyHosting
import ParleyTesting
import Testing

@Suite struct SystemdNotifierTests {
    @Test func readyStoppingAndWatchdogPingsReachTheSocket() async throws {
        let socket = try FakeNotifySocket()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "20000"])
        #expect(notifier.watchdogInterval == .milliseconds(10))
        notifier.ready(status: "2 bots running")
        #expect(await socket.nextOffPool() == "READY=1\nSTATUS=2 bots running")
        let pinging = Task { await notifier.feedWatchdog() }
        #expect(await socket.nextOffPool() == "WATCHDOG=1")
        #expect(await socket.nextOffPool() == "WATCHDOG=1")
        pinging.cancel()
        await pinging.value
        notifier.stopping()
        // Pings already sent may come first; STOPPING follows them.
        var last = await socket.nextOffPool()
        for _ in 0..<10 where last == "WATCHDOG=1" { last = await socket.nextOffPool() }
        #expect(last == "STOPPING=1\nSTATUS=shutting down")
    }

    @Test func withoutASocketOrWithAnotherProcesssWatchdogNothingIsSent() {
        #expect(!SystemdNotifier(environment: [:]).notify("READY=1"))
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "1000"]).watchdogInterval == nil)
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": "/x", "WATCHDOG_USEC": "1000", "WATCHDOG_PID": "1"]).watchdogInterval == nil)
        #expect(!SystemdNotifier(environment: ["NOTIFY_SOCKET": "/nonexistent/socket"]).notify("READY=1"))
    }
}
