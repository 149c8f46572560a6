import Foundation
import ParleyCore
import Synchronization

/// How a pause or cancel reaches a job's run in this process: the run checks `isStopping`
/// before each send and stops taking new recipients; its waits on the clock (pacing, backoff)
/// end early; whoever asked waits with `waitUntilEnded()` until the sends in flight are done
/// and recorded.
final class BroadcastRunControl: Sendable {
    private struct State {
        var stopping = false
        var nextWaiter: UInt64 = 0
        /// Sleeps cut short by a stop.
        var sleepers: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())
    private let ended = EndLatch()

    /// A stop was asked for: send nothing more.
    var isStopping: Bool { state.withLock { $0.stopping } }

    /// Asks the run to stop after the sends in flight.
    func requestStop() {
        let sleepers = state.withLock { state in
            state.stopping = true
            defer { state.sleepers.removeAll() }
            return Array(state.sleepers.values)
        }
        for sleeper in sleepers { sleeper.resume() }
    }

    /// The run has ended (everything it sent is recorded).
    func end() { ended.open() }

    /// Returns once the run has ended.
    func waitUntilEnded() async { await ended.wait() }

    /// Sleeps on `clock` until `deadline`; returns false at once when a stop is asked for
    /// (before or during the sleep). Throws when the task is cancelled.
    func sleep(on clock: any ParleyClock, until deadline: Date) async throws -> Bool {
        guard !isStopping else { return false }
        return try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await clock.sleep(until: deadline)
                return true
            }
            group.addTask {
                await self.waitForStop()
                return false
            }
            defer { group.cancelAll() }
            let slept = try await group.next() ?? false
            // The stop waiter also ends when the task is cancelled: that is no stop.
            if !slept && !isStopping { throw CancellationError() }
            return slept
        }
    }

    /// Returns when a stop is asked for, or when the task is cancelled.
    private func waitForStop() async {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // Under the lock: a cancel or stop either came before (seen here) or comes
                // after the continuation is registered (and resumes it).
                let now = state.withLock { state in
                    if state.stopping || Task.isCancelled { return true }
                    state.sleepers[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: id) }?.resume()
        }
    }
}
