import Synchronization

/// Counts work in flight (messages being handled, actions running, timers firing) and wakes
/// whoever waits for the count to reach zero.
final class IdleTracker: Sendable {
    private struct State {
        var active = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    /// One more piece of work started.
    func begin() { state.withLock { $0.active += 1 } }

    /// One piece of work finished.
    func end() {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.active -= 1
            guard state.active <= 0 else { return [] }
            state.active = 0
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in ready { waiter.resume() }
    }

    /// Work in flight now.
    var active: Int { state.withLock { $0.active } }

    /// Returns once nothing is in flight (or the task is cancelled).
    func waitUntilZero() async {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let idle = state.withLock { state in
                    if state.active == 0 || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if idle { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
