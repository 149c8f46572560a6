import Foundation
import Synchronization

/// Writes a run's outcomes, batch after batch in order. On PostgreSQL behind the run's back,
/// on a queue of its own: a batch's write costs the database's work on a few hundred rows,
/// and the run goes on sending meanwhile instead of waiting for it. That is safe for the same
/// reason a crash is: a recipient whose outcome is not written yet stays pending, and a later
/// run resends with the same client message number, which the server recognises. `settle`
/// waits for every batch and throws the first failure; a failure also refuses the next batch.
/// On SQLite (a local write) each batch is written at once.
final class OutcomeRecorder: Sendable {
    private let store: BroadcastStore
    private let job: String
    /// The run's claimant, kept with each outcome.
    private let sender: String?
    private let queue: DispatchQueue?
    private let failure = Mutex<BroadcastError?>(nil)

    init(store: BroadcastStore, job: String, sender: String? = nil) {
        self.store = store
        self.job = job
        self.sender = sender
        queue = store.isShared ? DispatchQueue(label: "parley-broadcast-outcomes") : nil
    }

    /// Writes `outcomes` (at once, or queued behind the ones before).
    func record(_ outcomes: [BroadcastRecipient]) throws(BroadcastError) {
        guard let queue else { return try store.record(job: job, outcomes, by: sender) }
        if let failed = failure.withLock({ $0 }) { throw failed }
        queue.async { [self] in
            guard failure.withLock({ $0 }) == nil else { return }
            do throws(BroadcastError) {
                try store.record(job: job, outcomes, by: sender)
            } catch {
                failure.withLock { $0 = $0 ?? error }
            }
        }
    }

    /// Returns once every batch queued is written; throws the first that failed.
    func settle() async throws(BroadcastError) {
        guard let queue else { return }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in queue.async { done.resume() } }
        if let failed = failure.withLock({ $0 }) { throw failed }
    }
}
