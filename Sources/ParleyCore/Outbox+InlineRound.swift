import Foundation

// MARK: - Rounds run by the submitter

extension Outbox {
    /// One round (persist, take, send, apply) on the submitter's task, when a round may start
    /// now; otherwise the worker is told. A lone send thus reaches the transport without a
    /// hand-off to the worker task and back. What is left afterwards (items queued meanwhile,
    /// lanes blocked or not taken, rows to delete) is the worker's, as are timers and retries.
    func runRoundInline() async {
        // A transport that answers without suspending (the in-process hub) would let a
        // submitter that sends in a loop keep its thread for as long as it likes: now and
        // then it lets the tasks queued behind it (the receivers of its messages) run first.
        inlineRoundsRun &+= 1
        if inlineRoundsRun % Self.roundsBetweenYields == 0 { await Task.yield() }
        let width = max(1, transport.concurrentSends)
        guard running, roundsInFlight < width else {
            signal()
            return
        }
        persistPending()
        let now = clock.now()
        releaseBlockedLanes(at: now)
        // The same pick as the worker's: with one round at a time every ready lane, else
        // one lane that stays out of `ready` until its round is applied.
        let batch = takeBatch(at: now, maxLanes: width == 1 ? .max : 1)
        // Nothing may go now: rate limits and backoff armed a timer that wakes the worker.
        guard !batch.isEmpty else { return }
        roundsInFlight += 1
        if width > 1 {
            for (key, _) in batch { lanesInFlight.insert(key) }
            // Other lanes need not wait for this round: the worker sends them meanwhile.
            if hasQueuedWork { signal() }
        }
        inlineRounds += 1
        await send(batch)
        roundsInFlight -= 1
        inlineRounds -= 1
        if inlineRounds == 0, !inlineRoundsDone.isEmpty {
            let waiters = inlineRoundsDone
            inlineRoundsDone.removeAll()
            for waiter in waiters { waiter.resume() }
        }
        if hasQueuedWork { signal() }
    }

    /// Inline rounds a submitter runs before it lets other tasks have its thread.
    static var roundsBetweenYields: Int { 8 }

    /// True when the worker has something to do: items to persist, rows to delete, ready lanes.
    var hasQueuedWork: Bool {
        !incoming.isEmpty || !completedIDs.isEmpty || ready.indices.contains { readyHead[$0] < ready[$0].count }
    }

    /// Deletes the rows of items already accepted (at stop: nothing else will).
    func persistCompleted() {
        guard !completedIDs.isEmpty else { return }
        let deleting = completedIDs
        completedIDs.removeAll()
        // On failure the rows stay: the next start resends them and the server deduplicates them.
        _ = try? store.commit(inserting: [], deleting: deleting)
    }
}
