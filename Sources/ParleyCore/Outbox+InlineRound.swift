import Foundation

// MARK: - Rounds run by the submitter

extension Outbox {
    /// One round (persist, take, send, apply) on the submitter's task, when a round may start
    /// now; otherwise the worker is told. A lone send thus reaches the transport without a
    /// hand-off to the worker task and back. What is left afterwards (items queued meanwhile,
    /// lanes blocked or not taken, rows to delete) is the worker's, as are timers and retries.
    func runRoundInline() async {
        let width = max(1, transport.concurrentSends)
        guard machine.hasRoom(forRoundsOf: width) else {
            signal()
            return
        }
        await persistPending()
        // A commit off the actor may have let other rounds start, or `stop()` begin, meanwhile.
        guard machine.hasRoom(forRoundsOf: width) else {
            signal()
            return
        }
        let now = clock.now()
        releaseBlocks(at: now)
        // The same pick as the worker's: with one round at a time every ready lane, else
        // one lane that stays out of `ready` until its round is applied.
        let round = takeRound(at: now, concurrent: width > 1)
        // Nothing may go now: rate limits and backoff armed a timer that wakes the worker.
        guard !round.isEmpty else { return }
        await inlineRound {
            // Other lanes need not wait for this round: the worker sends them meanwhile.
            if width > 1, queue.hasWork { signal() }
            await send(round)
        }
        if queue.hasWork { signal() }
    }

    /// What `submit([item])[0]` answers, without an array on either side: every send and
    /// reply of a `ChatClient` submits one item.
    func submitOne(_ item: OutboxItem) async -> Result<OutboxResult, ParleyError> {
        await yieldNowAndThen()
        guard machine.isRunning else { return .failure(Self.notRunning) }
        if let result = await sendAlone(item) { return result }
        return await submitQueued([item], at: clock.now())[0]
    }

    /// A lone message while nothing else is queued, in flight or limited, and nothing needs
    /// storing (a memory outbox): straight to the transport, without lanes or a waiter. Nil
    /// when it does not qualify (it goes the usual way). Anything but success is applied as
    /// a round's result would be: the item then waits first in its lane for its retry (queued
    /// as of then: the clock is read only on that path).
    func sendAlone(_ item: OutboxItem) async -> Result<OutboxResult, ParleyError>? {
        guard !storeKeepsItems, machine.roundsInFlight == 0, queue.isEmptyAndUnlimited,
              case .message(let envelope) = item.operation else { return nil }
        var item = item
        item.sequence = queue.takeSequence()
        let answers = await inlineRound { await transport.sendBatch([envelope]) }
        if answers.count == 1, case .success(let receipt) = answers[0] {
            if queue.hasWork { signal() }
            return .success(.sent(receipt))
        }
        let outcome = answers.count == 1 ? answers[0] : .failure(ParleyError(.notSent, "the transport answered \(answers.count) of 1"))
        item.enqueuedAt = clock.now()
        let batchID = registerBatch(count: 1)
        apply([outcome.map(OutboxResult.sent)], to: [Queued(item: item, slot: Slot(batch: batchID, index: 0))], lane: LaneKey(of: item))
        if queue.hasWork { signal() }
        return await results(ofBatch: batchID, count: 1)[0]
    }

    /// Runs `body` as a round in flight: counted against `concurrentSends`, and waited for
    /// by `stop()`. Called only while running (checked with no `await` since).
    func inlineRound<Value>(_ body: () async -> Value) async -> Value {
        machine.roundStarted(inline: true)
        let value = await body()
        if machine.roundFinished(inline: true), !inlineRoundsDone.isEmpty {
            let waiters = inlineRoundsDone
            inlineRoundsDone.removeAll()
            for waiter in waiters { waiter.resume() }
        }
        return value
    }

    /// A transport that answers without suspending (the in-process hub) would let a
    /// submitter that sends in a loop keep its thread for as long as it likes: now and then
    /// it lets the tasks queued behind it (the receivers of its messages) run first.
    /// Every `configuration.submitsBetweenYields` submits (the default, every other one:
    /// yielding more rarely lets many senders outrun the bot they write to).
    func yieldNowAndThen() async {
        let every = configuration.submitsBetweenYields
        guard every > 0 else { return }
        submitsSoFar &+= 1
        if submitsSoFar % every == 0 { await Task.yield() }
    }

    /// Deletes the rows of items already accepted (at stop: nothing else will).
    func persistCompleted() {
        guard queue.hasRowsToDelete else { return }
        let deleting = queue.takeCompletedIDs()
        // On failure the rows stay: the next start resends them and the server deduplicates them.
        _ = try? store.commit(inserting: [], deleting: deleting)
    }
}
