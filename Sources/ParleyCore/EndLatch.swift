import Synchronization

/// Opens once; `wait()` returns once it is open (at once if it already is). What a run or a
/// thread tells those who wait for it to end (a broadcast run's control, the lease keeper's
/// loops).
package final class EndLatch: Sendable {
    private struct State {
        var open = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    package init() {}

    /// Opens the latch and wakes every waiter (a second call does nothing more).
    package func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the latch is open.
    package func wait() async {
        await withCheckedContinuation { continuation in
            let open = state.withLock { state in
                if !state.open { state.waiters.append(continuation) }
                return state.open
            }
            if open { continuation.resume() }
        }
    }
}
