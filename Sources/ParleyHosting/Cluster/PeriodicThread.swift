import Foundation
import ParleyHTTPServer
import Synchronization

/// Runs `body` every `interval` on a thread of its own, until `stop()`.
///
/// For the lease keeper's loops: a lease must be renewed on time whatever else the process is
/// doing. On the cooperative pool (two threads on a 2-core machine) a renewal waits behind
/// every task that blocks a thread — a synchronous database call, a slow bot — and a lease
/// lapsed while the process was healthy (a fresh-clone CI run showed it: the second process
/// took the bots over from a live first one). A thread is scheduled by the kernel alone.
final class PeriodicThread: Sendable {
    private struct State {
        var stopped = false
        var finished = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let condition = MonotonicCondition()
    private let state = Mutex(State())

    init(name: String, every interval: Duration, _ body: @escaping @Sendable () -> Void) {
        let step = UInt64(interval.components.seconds) * 1_000_000_000 + UInt64(interval.components.attoseconds / 1_000_000_000)
        let thread = Thread { [self] in
            var next = MonotonicCondition.now() + step
            while !sleep(until: next) {
                body()
                // From now, not from the last deadline: a body that overran is not run again at once.
                next = MonotonicCondition.now() + step
            }
            let waiters = state.withLock { state in
                state.finished = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
        thread.name = name
        thread.start()
    }

    /// Sleeps until `deadline`; true when stopped meanwhile.
    private func sleep(until deadline: UInt64) -> Bool {
        condition.withLock {
            while !isStopped, MonotonicCondition.now() < deadline { condition.wait(until: deadline) }
            return isStopped
        }
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    /// Ends the loop and returns once the thread is done (a `body` under way runs to its end).
    func stop() async {
        condition.withLock {
            state.withLock { $0.stopped = true }
            condition.signal()
        }
        await withCheckedContinuation { continuation in
            let done = state.withLock { state in
                if state.finished { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }
}
