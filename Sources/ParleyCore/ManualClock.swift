import Foundation
import Synchronization

/// A virtual clock for tests and flow-test runs: time moves only when `advance(by:)` says so.
///
/// `advance(by:)` wakes sleepers in deadline order (ties in the order they went to sleep),
/// setting `now()` to each sleeper's deadline as it wakes it and letting the woken task run
/// before the next, so what happens at 10 s is done before what happens at 20 s starts.
/// `waitForSleepers(_:)` lets a test wait, without real sleeps, until the code under test is
/// parked on the clock.
public final class ManualClock: ParleyClock {
    private struct Sleeper {
        var deadline: Date
        var order: UInt64
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct Waiter {
        var id: UInt64
        var count: Int
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var now: Date
        var nextOrder: UInt64 = 0
        var sleepers: [UInt64: Sleeper] = [:]
        var waiters: [Waiter] = []
    }

    private let state: Mutex<State>

    /// A clock standing at `start` (default 2026-01-01T00:00:00Z).
    public init(start: Date = Date(timeIntervalSince1970: 1_767_225_600)) {
        state = Mutex(State(now: start))
    }

    public func now() -> Date { state.withLock { $0.now } }

    /// How many tasks are sleeping on this clock right now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The earliest deadline of a sleeper, if any.
    public var nextDeadline: Date? { state.withLock { $0.sleepers.values.map(\.deadline).min() } }

    public func sleep(until deadline: Date) async throws {
        let order = state.withLock { state in
            state.nextOrder += 1
            return state.nextOrder
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready: [CheckedContinuation<Void, Never>]
                let resumeNow: Bool
                (resumeNow, ready) = state.withLock { state in
                    if deadline <= state.now || Task.isCancelled { return (true, []) }
                    state.sleepers[order] = Sleeper(deadline: deadline, order: order, continuation: continuation)
                    return (false, Self.takeSatisfiedWaiters(&state))
                }
                if resumeNow {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                }
                for waiter in ready { waiter.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: order) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward by `duration`, waking every sleeper whose deadline falls within it,
    /// earliest first. Each woken task gets a chance to run (and to go back to sleep on this
    /// clock) before the next deadline is considered.
    public func advance(by duration: Duration) async {
        let target = state.withLock { $0.now }.addingTimeInterval(duration.timeInterval)
        await advance(to: target)
    }

    /// Moves time forward to `target` (never backwards), waking sleepers in deadline order.
    public func advance(to target: Date) async {
        // Bounded: each round wakes one sleeper; a woken task that keeps re-sleeping at the same
        // instant could loop, so the rounds are capped.
        for _ in 0..<100_000 {
            let next: Sleeper? = state.withLock { state in
                guard let earliest = state.sleepers.values.min(by: { ($0.deadline, $0.order) < ($1.deadline, $1.order) }),
                      earliest.deadline <= target else { return nil }
                state.sleepers.removeValue(forKey: earliest.order)
                if earliest.deadline > state.now { state.now = earliest.deadline }
                return earliest
            }
            guard let next else { break }
            next.continuation.resume()
            await Self.yieldRepeatedly()
        }
        state.withLock { if target > $0.now { $0.now = target } }
        await Self.yieldRepeatedly()
    }

    /// Suspends until at least `count` tasks sleep on this clock. Pair it with a timeout in
    /// tests (`withTimeout`), since the code under test may never sleep.
    public func waitForSleepers(_ count: Int = 1) async {
        let id = state.withLock { state in
            state.nextOrder += 1
            return state.nextOrder
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let satisfied = state.withLock { state in
                    if state.sleepers.count >= count || Task.isCancelled { return true }
                    state.waiters.append(Waiter(id: id, count: count, continuation: continuation))
                    return false
                }
                if satisfied { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume()
        }
    }

    private static func takeSatisfiedWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let count = state.sleepers.count
        let ready = state.waiters.filter { $0.count <= count }.map(\.continuation)
        state.waiters.removeAll { $0.count <= count }
        return ready
    }

    /// Lets other tasks run: woken sleepers usually need a few hops to finish their step.
    private static func yieldRepeatedly() async {
        for _ in 0..<50 { await Task.yield() }
    }
}
