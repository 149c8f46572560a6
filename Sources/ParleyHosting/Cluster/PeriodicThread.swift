import Foundation
import ParleyCore
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
    private let condition = MonotonicCondition()
    private let stopped = Mutex(false)
    private let finished = EndLatch()

    init(name: String, every interval: Duration, _ body: @escaping @Sendable () -> Void) {
        let step = interval.clampedNanoseconds
        let thread = Thread { [self] in
            var next = MonotonicCondition.now() + step
            while !sleep(until: next) {
                body()
                // From now, not from the last deadline: a body that overran is not run again at once.
                next = MonotonicCondition.now() + step
            }
            finished.open()
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

    private var isStopped: Bool { stopped.withLock { $0 } }

    /// Ends the loop and returns once the thread is done (a `body` under way runs to its end).
    func stop() async {
        condition.withLock {
            stopped.withLock { $0 = true }
            condition.signal()
        }
        await finished.wait()
    }
}
