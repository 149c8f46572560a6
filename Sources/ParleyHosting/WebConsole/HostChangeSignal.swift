import Synchronization

/// "Something in the host may have changed": what wakes the agents' console streams instead of
/// polling the stores. The bots feed it as they work (`SignallingActivityObserver`); a waiter
/// wakes at the next change after the one it last saw, so none is missed between a reading
/// and the wait. It says nothing about what changed: a waiter reads what it shows again.
///
/// `notify()` is on the bots' hot path (every message received and sent): one short lock, and
/// no work at all while nobody waits.
public final class HostChangeSignal: Sendable {
    private struct State {
        /// Counts the changes: what a waiter saw is the count it read.
        var generation: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var lastWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// The changes so far: pass it to `wait` after reading what it covers.
    public var generation: UInt64 { state.withLock { $0.generation } }

    /// Something changed: every waiter wakes.
    public func notify() {
        let woken = state.withLock { state in
            state.generation &+= 1
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in woken { waiter.resume() }
    }

    /// Returns once there was a change after `seen` (at once if there was one already), after
    /// `timeout`, or when the task is cancelled, whichever comes first.
    public func wait(after seen: UInt64, timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.change(after: seen) }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Returns at the first change after `seen`, or at cancellation.
    private func change(after seen: UInt64) async {
        let id = state.withLock { state in
            state.lastWaiter &+= 1
            return state.lastWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // A cancellation before this point finds no waiter to resume: it is seen here.
                let now = state.withLock { state in
                    guard state.generation == seen, !Task.isCancelled else { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
