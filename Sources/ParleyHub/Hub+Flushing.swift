import ParleyCore

extension Hub {
    /// Runs the group-commit loop. The send that finds no flush running commits inline
    /// (no task hop for the common lone send) for a few rounds, then hands the rest to a
    /// task so its own caller is not held up by others' messages.
    func startFlushing() {
        guard flush(rounds: 4) else { return }
        Task.detached { [self] in _ = flush(rounds: .max) }
    }

    /// Writes what is pending in one transaction, then delivers and answers the senders;
    /// repeats while sends arrived meanwhile, at most `rounds` times. Sends that queue up
    /// during a COMMIT share the next one, so the commit rate, not the send rate, bounds
    /// throughput. Returns true if the loop is still owned (work may remain).
    private func flush(rounds: Int) -> Bool {
        guard let database else { return false }
        for _ in 0..<rounds {
            let batch = state.withLock { state -> HubState.Batch? in
                guard !state.pending.isEmpty else {
                    state.flushing = false
                    return nil
                }
                return state.takeBatch()
            }
            guard let batch else { return false }
            let result = Result { try database.write(batch) }.mapError(Hub.storageError)
            let answers = withDeferredWakes { $0.finishCommit(batch, result: result) }
            for (waiter, answer) in answers { waiter.resume(answer) }
        }
        return true
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
