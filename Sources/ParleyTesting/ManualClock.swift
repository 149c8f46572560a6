import Foundation
import ParleyCore

/// A virtual clock for tests: time moves only when `advance(by:)` says so.
///
/// `advance(by:)` wakes sleepers in deadline order (ties in the order they went to sleep),
/// setting `now()` to each sleeper's deadline as it wakes it and letting the woken task run
/// before the next, so what happens at 10 s is done before what happens at 20 s starts.
/// `waitForSleepers(_:)` lets a test wait, without real sleeps, until the code under test is
/// parked on the clock.
public final class ManualClock: ParleyClock {
    private let time: VirtualTime

    /// A clock standing at `start` (default 2026-01-01T00:00:00Z).
    public init(start: Date = Date(timeIntervalSince1970: 1_767_225_600)) {
        time = VirtualTime(now: start)
    }

    public func now() -> Date { time.now }

    /// How many tasks are sleeping on this clock right now.
    public var sleeperCount: Int { time.sleeperCount }

    /// The earliest deadline of a sleeper, if any.
    public var nextDeadline: Date? { time.nextDeadline }

    public func sleep(until deadline: Date) async throws { try await time.sleep(until: deadline) }

    /// Moves time forward by `duration`, waking every sleeper whose deadline falls within it,
    /// earliest first. Each woken task gets a chance to run (and to go back to sleep on this
    /// clock) before the next deadline is considered.
    public func advance(by duration: Duration) async {
        await advance(to: time.now.addingTimeInterval(duration.timeInterval))
    }

    /// Moves time forward to `target` (never backwards), waking sleepers in deadline order.
    public func advance(to target: Date) async {
        // Bounded: each round wakes one sleeper; a woken task that keeps re-sleeping at the same
        // instant could loop, so the rounds are capped.
        for _ in 0..<100_000 {
            guard time.wakeEarliest(dueBy: target) else { break }
            await Self.yieldRepeatedly()
        }
        time.wakeAll(dueBy: target)
        await Self.yieldRepeatedly()
    }

    /// Suspends until at least `count` tasks sleep on this clock. Pair it with a timeout in
    /// tests (`withTimeout`), since the code under test may never sleep.
    public func waitForSleepers(_ count: Int = 1) async { await time.waitForSleepers(count) }

    /// Lets other tasks run: woken sleepers usually need a few hops to finish their step.
    private static func yieldRepeatedly() async {
        for _ in 0..<50 { await Task.yield() }
    }
}
