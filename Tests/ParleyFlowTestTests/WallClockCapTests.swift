import Synchronization
import Testing
@testable import ParleyFlowTest

@Suite struct WallClockCapTests {
    @Test func returnsTheWorkResult() async {
        let watchdog = WallClockWatchdog()
        defer { watchdog.stop() }
        let value = await WallClockCap.run(limit: .seconds(30), watchdog: watchdog) { 42 }
        #expect(value == 42)
    }

    /// Work that never ends (and ignores cancellation) still gives the caller an answer at the
    /// cap; work that ends in time under the same watchdog is not disturbed.
    @Test func givesUpOnWorkThatNeverEnds() async {
        let watchdog = WallClockWatchdog()
        defer { watchdog.stop() }
        async let stuck: Int? = WallClockCap.run(limit: .milliseconds(50), watchdog: watchdog) {
            await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
            return 1
        }
        let quick = await WallClockCap.run(limit: .seconds(30), watchdog: watchdog) { 2 }
        #expect(await stuck == nil)
        #expect(quick == 2)
    }

    @Test func watchdogFiresOnlyWhatExpired() async {
        let watchdog = WallClockWatchdog()
        defer { watchdog.stop() }
        let fired = Fired()
        let cancelled = watchdog.watch(limit: .milliseconds(20)) { fired.names.withLock { $0.append("cancelled") } }
        watchdog.cancel(cancelled)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            _ = watchdog.watch(limit: .milliseconds(40)) {
                fired.names.withLock { $0.append("expired") }
                continuation.resume()
            }
        }
        #expect(fired.names.withLock { $0 } == ["expired"])
    }

    final class Fired: Sendable { let names = Mutex<[String]>([]) }
}
