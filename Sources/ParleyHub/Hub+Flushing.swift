import ParleyCore

extension Hub {
    /// Starts the group-commit loop (the send that set `flushing` calls it, outside the lock):
    /// the pending sends go to the store's writer as one write; when it committed, they are
    /// delivered and their senders answered, and the sends that queued meanwhile go next, as
    /// one write again. So the commit rate, not the send rate, bounds throughput, and the
    /// writer may put the hub's write in one transaction with other writes of the file.
    func startFlushing() {
        guard let database, let batch = state.withLock({ $0.nextBatch() }) else { return }
        submit(batch, to: database)
    }

    private func submit(_ batch: HubState.Batch, to database: HubDatabase) {
        database.writer.submit({ connection in try HubDatabase.write(batch, to: connection) }, done: { [self] result in
            // After the COMMIT, on the writer thread: deliver, answer and take the next batch in
            // one turn of the hub's lock — right here if the lock is free, else on the hub's own
            // queue. The writer never waits for that lock: a thread holding it may be waiting
            // for the writer.
            let result = result.mapError(Hub.storageError)
            let step: @Sendable (inout HubState) -> (answers: [(SendWaiter, Result<SendReceipt, ParleyError>)], next: HubState.Batch?) = { state in (answers: state.finishCommit(batch, result: result), next: state.nextBatch()) }
            if let done = withDeferredWakesIfAvailable(step) {
                finish(done.answers, then: done.next, database)
            } else {
                deliveries.async { [self] in
                    let done = withDeferredWakes(step)
                    finish(done.answers, then: done.next, database)
                }
            }
        })
    }

    private func finish(_ answers: [(SendWaiter, Result<SendReceipt, ParleyError>)], then next: HubState.Batch?, _ database: HubDatabase) {
        for (waiter, answer) in answers { waiter.resume(answer) }
        if let next { submit(next, to: database) }
    }
}

extension HubState {
    /// What one group commit writes: messages and the channels they created.
    struct Batch: Sendable {
        var writes: [PendingWrite]
        /// Channels created since the last commit: number, key, members.
        var newChannels: [(index: Int, key: ChannelKey, members: [String])]
        /// Channels whose highest seq in this batch belongs to a noPersist message, with
        /// that seq: the only seqs the message rows themselves do not record.
        var unstoredSeqs: [Int: Int64]
    }

    /// What is pending as the next group commit; nil (and the loop ends) if nothing is.
    mutating func nextBatch() -> Batch? {
        guard !pending.isEmpty else {
            flushing = false
            return nil
        }
        return takeBatch()
    }

    mutating func takeBatch() -> Batch {
        var writes: [PendingWrite] = []
        swap(&writes, &pending)
        let created = channelsToSave.map { (index: $0, key: channels[$0].key, members: Array(channels[$0].members.keys)) }
        channelsToSave.removeAll()
        var last: [Int: HubMessage] = [:]
        for write in writes where write.message.seq > last[write.channel]?.seq ?? 0 { last[write.channel] = write.message }
        let unstored = last.filter { $0.value.flags.contains(.noPersist) }.mapValues(\.seq)
        return Batch(writes: writes, newChannels: created, unstoredSeqs: unstored)
    }

    /// After the transaction: on success, delivers in seq order and answers with receipts;
    /// on failure, forgets the messages (so a resend stores them) and answers with the error.
    mutating func finishCommit(_ batch: Batch, result: Result<Void, ParleyError>) -> [(SendWaiter, Result<SendReceipt, ParleyError>)] {
        var answers: [(SendWaiter, Result<SendReceipt, ParleyError>)] = []
        for write in batch.writes {
            let message = write.message
            var waiters = write.waiters
            waiters += lateWaiters.removeValue(forKey: MessageLocation(channel: write.channel, seq: message.seq)) ?? []
            switch result {
            case .success:
                deliver(message, in: write.channel, from: write.transport)
                let receipt = Self.receipt(index: write.channel, seq: message.seq, time: message.timestamp)
                for (position, waiter) in waiters.enumerated() {
                    if position == 0 && write.losesAck {
                        answers.append((waiter, .failure(ParleyError(.networkUnavailable, "connection lost before the receipt arrived"))))
                    } else {
                        answers.append((waiter, .success(receipt)))
                    }
                }
            case .failure(let error):
                receipts[ReceiptKey(sender: message.sender, clientMessageID: message.clientMessageID)] = nil
                for waiter in waiters { answers.append((waiter, .failure(error))) }
            }
        }
        if case .failure = result {
            channelsToSave.append(contentsOf: batch.newChannels.map(\.index))
        }
        return answers
    }
}
