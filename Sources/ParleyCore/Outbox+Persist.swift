import Foundation

// MARK: - Writing items before they are sent

extension Outbox {
    /// Writes the new items and deletes the finished ones, in one transaction. On a store whose
    /// commit takes a round trip (PostgreSQL) the commit runs off the actor: submits go on
    /// meanwhile, and what they queue is written by the same caller's next commit, many items
    /// a round trip (group commit); another caller finds a commit under way and leaves its rows
    /// to it. New items join their lanes only once written.
    func persistPending() async {
        guard queue.hasRowsToWrite else { return }
        guard let committer else {
            let inserting = queue.takeIncoming()
            settle(inserting, failure: commitHere(inserting.map(\.item), queue.takeCompletedIDs()))
            return
        }
        guard !persisting else { return }
        persisting = true
        // Bounded: each turn takes every row queued; submits stop once the outbox stops.
        while queue.hasRowsToWrite {
            let inserting = queue.takeIncoming()
            let items = inserting.map(\.item), deleting = queue.takeCompletedIDs()
            let failure = await withCheckedContinuation { (continuation: CheckedContinuation<ParleyError?, Never>) in
                committer.async { [self] in continuation.resume(returning: commitHere(items, deleting)) }
            }
            settle(inserting, failure: failure)
        }
        persisting = false
        let waiters = persistsDone
        persistsDone.removeAll()
        for waiter in waiters { waiter.resume() }
        // The items just written wait in their lanes: the worker sends what this caller does not.
        if queue.hasWork { signal() }
    }

    /// One commit, on whatever thread calls it; the failure, if any.
    nonisolated func commitHere(_ inserting: [OutboxItem], _ deleting: [UUIDKey]) -> ParleyError? {
        // A store that keeps nothing is spared building the rows.
        guard storeKeepsItems else { return nil }
        do {
            try store.commit(inserting: inserting, deleting: deleting)
            return nil
        } catch {
            return ParleyError.wrapping(error, as: .storage)
        }
    }

    /// Written items join their lanes; those a failed commit did not write fail to their callers.
    private func settle(_ inserting: [Queued], failure: ParleyError?) {
        if let failure {
            for queued in inserting { finish(queued, .failure(failure)) }
            return
        }
        queue.appendToLanes(inserting)
    }
}
