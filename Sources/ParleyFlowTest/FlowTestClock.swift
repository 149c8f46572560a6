import Foundation
import ParleyCore

/// The virtual clock of a flow test: time moves only in `advance(to:)`, which wakes the
/// sleepers due by then and returns at once. Unlike `ManualClock` it does not yield to let
/// woken tasks run: the runner waits for the bot engine's exact idle after every move, so
/// yielding would only cost time.
public final class FlowTestClock: ParleyClock {
    private let time: VirtualTime

    /// A clock standing at `start`.
    public init(start: Date) { time = VirtualTime(now: start) }

    public func now() -> Date { time.now }

    /// How many tasks sleep on this clock.
    public var sleeperCount: Int { time.sleeperCount }

    /// The earliest deadline of a sleeper, if any.
    public var nextDeadline: Date? { time.nextDeadline }

    public func sleep(until deadline: Date) async throws { try await time.sleep(until: deadline) }

    /// Sets the time to `target` (never backwards) and wakes every sleeper due by then,
    /// earliest first.
    public func advance(to target: Date) { time.wakeAll(dueBy: target) }
}
