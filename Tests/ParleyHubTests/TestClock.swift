import Foundation
import ParleyCore
import Synchronization

/// Virtual time for tests: `now()` moves only when `advance(by:)` is called, and sleepers
/// wake when their deadline is reached.
final class TestClock: ParleyClock {
    private struct State {
        var now: Date
        var sleepers: [(deadline: Date, continuation: CheckedContinuation<Void, any Error>)] = []
    }

    private let state: Mutex<State>

    init(start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        state = Mutex(State(now: start))
    }

    func now() -> Date { state.withLock { $0.now } }

    func sleep(until deadline: Date) async throws {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                guard deadline > state.now else { return true }
                state.sleepers.append((deadline, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Number of tasks sleeping now (lets a test wait until a delayed send is parked).
    var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Moves time forward and wakes the sleepers whose deadline has come.
    func advance(by duration: Duration) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now = state.now.addingTimeInterval(duration.timeInterval)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.map(\.continuation)
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for continuation in woken { continuation.resume() }
    }
}
