import ParleyCore

extension Hub {
    /// Starts the group-commit loop (one at a time; `HubState.flushing` says one runs).
    func startFlushing() {
        Task.detached { [self] in flush() }
    }

    /// Writes what is pending in one transaction, then delivers and answers the senders;
    /// repeats while sends arrived meanwhile. Sends that queue up during a COMMIT share
    /// the next one, so the commit rate, not the send rate, bounds throughput.
    private func flush() {
        guard let database else { return }
        while true {
            let batch = state.withLock { state -> HubState.Batch? in
                guard !state.pending.isEmpty else {
                    state.flushing = false
                    return nil
                }
                return state.takeBatch()
            }
            guard let batch else { return }
            let result = Result { try database.write(batch) }.mapError(Hub.storageError)
            let answers = state.withLock { $0.finishCommit(batch, result: result) }
            for (waiter, answer) in answers { waiter.resume(with: answer) }
        }
    }
}

extension HubState {
    /// What one group commit writes: messages and the channels they created.
    struct Batch: Sendable {
        var writes: [PendingWrite]
        /// Channels created since the last commit: number, key, members.
        var newChannels: [(index: Int, key: ChannelKey, members: [String])]
        /// The highest seq per channel in this batch, written to the channel rows.
        var seqs: [Int: Int64]
    }

    mutating func takeBatch() -> Batch {
        var writes: [PendingWrite] = []
        swap(&writes, &pending)
        let created = channelsToSave.map { (index: $0, key: channels[$0].key, members: Array(channels[$0].members.keys)) }
        channelsToSave.removeAll()
        var seqs: [Int: Int64] = [:]
        for write in writes { seqs[write.channel] = max(seqs[write.channel] ?? 0, write.message.seq) }
        return Batch(writes: writes, newChannels: created, seqs: seqs)
    }

    /// After the transaction: on success, delivers in seq order and answers with receipts;
    /// on failure, forgets the messages (so a resend stores them) and answers with the error.
    mutating func finishCommit(_ batch: Batch, result: Result<Void, ParleyError>) -> [(CheckedContinuation<SendReceipt, any Error>, Result<SendReceipt, any Error>)] {
        var answers: [(CheckedContinuation<SendReceipt, any Error>, Result<SendReceipt, any Error>)] = []
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
