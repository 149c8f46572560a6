import Foundation
import Synchronization

/// What every virtual clock keeps: the current time and the tasks sleeping until a deadline.
///
/// The clocks differ only in how they move time: `ManualClock` wakes sleepers one at a time
/// and lets each run before the next, the flow-test clock wakes all that are due at once.
/// Sleepers wake in deadline order, ties in the order they went to sleep.
public final class VirtualTime: Sendable {
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

        mutating func nextID() -> UInt64 {
            nextOrder += 1
            return nextOrder
        }
    }

    private let state: Mutex<State>

    /// Time standing at `now`, with nobody asleep.
    public init(now: Date) { state = Mutex(State(now: now)) }

    /// The current virtual time.
    public var now: Date { state.withLock { $0.now } }

    /// How many tasks sleep right now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The earliest deadline of a sleeper, if any.
    public var nextDeadline: Date? { state.withLock { $0.sleepers.values.map(\.deadline).min() } }

    /// Suspends until a move of time reaches `deadline` (at once if it already has); throws
    /// `CancellationError` when the task is cancelled.
    public func sleep(until deadline: Date) async throws {
        let order = state.withLock { $0.nextID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resumeNow, ready) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
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

    /// Wakes the earliest sleeper due by `target`, moving the time to its deadline (never
    /// backwards). False when nobody is due.
    public func wakeEarliest(dueBy target: Date) -> Bool {
        let next: Sleeper? = state.withLock { state in
            guard let earliest = state.sleepers.values.min(by: { ($0.deadline, $0.order) < ($1.deadline, $1.order) }),
                  earliest.deadline <= target else { return nil }
            state.sleepers.removeValue(forKey: earliest.order)
            if earliest.deadline > state.now { state.now = earliest.deadline }
            return earliest
        }
        next?.continuation.resume()
        return next != nil
    }

    /// Moves the time to `target` (never backwards) and wakes every sleeper due by then, in
    /// deadline order.
    public func wakeAll(dueBy target: Date) {
        let due = state.withLock { state -> [Sleeper] in
            if target > state.now { state.now = target }
            let now = state.now
            let due = state.sleepers.values.filter { $0.deadline <= now }.sorted { ($0.deadline, $0.order) < ($1.deadline, $1.order) }
            for sleeper in due { state.sleepers.removeValue(forKey: sleeper.order) }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Suspends until at least `count` tasks sleep. Pair it with a timeout in tests, since
    /// the code under test may never sleep.
    public func waitForSleepers(_ count: Int) async {
        let id = state.withLock { $0.nextID() }
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
}
