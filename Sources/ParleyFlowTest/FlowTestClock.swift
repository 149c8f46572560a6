import Foundation
import ParleyCore
import Synchronization

/// The virtual clock of a flow test: time moves only in `advance(to:)`, which wakes the
/// sleepers due by then and returns at once. Unlike `ManualClock` it does not yield to let
/// woken tasks run: the runner waits for the bot engine's exact idle after every move, so
/// yielding would only cost time.
public final class FlowTestClock: ParleyClock {
    private struct Sleeper {
        var deadline: Date
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var nextID: UInt64 = 0
        var sleepers: [UInt64: Sleeper] = [:]
    }

    private let state: Mutex<State>

    /// A clock standing at `start`.
    public init(start: Date) { state = Mutex(State(now: start)) }

    public func now() -> Date { state.withLock { $0.now } }

    /// How many tasks sleep on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The earliest deadline of a sleeper, if any.
    public var nextDeadline: Date? { state.withLock { $0.sleepers.values.map(\.deadline).min() } }

    public func sleep(until deadline: Date) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state in
                    if deadline <= state.now || Task.isCancelled { return true }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return false
                }
                guard resumeNow else { return }
                if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Sets the time to `target` (never backwards) and wakes every sleeper due by then,
    /// earliest first.
    public func advance(to target: Date) {
        let due = state.withLock { state -> [Sleeper] in
            if target > state.now { state.now = target }
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }.sorted { ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key) }
            for (id, _) in due { state.sleepers.removeValue(forKey: id) }
            return due.map(\.value)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
