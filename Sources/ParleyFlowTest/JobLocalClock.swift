import Foundation
import ParleyCore
import Synchronization

/// The clock of broadcast jobs in a flow test: it reads the test's virtual time, but a wait
/// (rate pacing, retry backoff) moves only the job's own time and returns at once.
///
/// Why: the engine counts a running broadcast job as work in flight, so a job pacing itself
/// on the test clock would keep the bot from ever being idle while the runner, waiting for
/// idle, never moves that clock. Pacing shapes throughput, not the conversation a flow test
/// checks; so a scheduled broadcast's messages all arrive at the instant it fires.
final class JobLocalClock: ParleyClock {
    private let base: any ParleyClock
    /// How far the jobs' waits have gone past the base clock.
    private let local = Mutex<Date?>(nil)

    /// Job time on top of `base`.
    init(base: any ParleyClock) { self.base = base }

    func now() -> Date {
        let now = base.now()
        return local.withLock { local in local.map { max($0, now) } ?? now }
    }

    func sleep(until deadline: Date) async throws {
        try Task.checkCancellation()
        local.withLock { local in local = max(local ?? deadline, deadline) }
    }
}
