import Foundation

// MARK: - Sending a batch and applying its results

extension Outbox {
    /// Sends a batch: the messages of every lane in one `sendBatch` call (one hop to the
    /// transport, not one per message), reactions one by one. Results are applied per lane.
    func send(_ batch: Round) async {
        var envelopes: [OutgoingEnvelope] = []
        for (key, entries) in batch where !key.isReaction {
            for entry in entries {
                if case .message(let envelope) = entry.item.operation { envelopes.append(envelope) }
            }
        }
        var results = envelopes.isEmpty ? [] : await transport.sendBatch(envelopes)
        if results.count != envelopes.count {
            // A transport that broke the contract: treat every message as not sent.
            results = envelopes.map { _ in .failure(ParleyError(.notSent, "the transport answered \(results.count) of \(envelopes.count)")) }
        }
        var offset = 0
        for (key, entries) in batch {
            var outcomes: [Result<OutboxResult, ParleyError>] = []
            if key.isReaction {
                for entry in entries {
                    do { outcomes.append(.success(try await perform(entry.item.operation))) } catch {
                        outcomes.append(.failure(ParleyError.wrapping(error, as: .serverError)))
                    }
                }
            } else {
                outcomes = results[offset..<(offset + entries.count)].map { $0.map(OutboxResult.sent) }
                offset += entries.count
            }
            apply(outcomes, to: entries, lane: key)
        }
    }

    /// Applies a lane's results in order. From the first item to retry on, the rest of the
    /// lane goes back to its front (order holds); a transient error delays the lane.
    func apply(_ outcomes: [Result<OutboxResult, ParleyError>], to entries: [Queued], lane key: LaneKey) {
        queue.roundDone(lane: key)
        var requeue: [Queued] = []
        var delay: Duration?
        for (entry, outcome) in zip(entries, outcomes) {
            var entry = entry
            if !requeue.isEmpty {
                requeue.append(entry)
                continue
            }
            switch outcome {
            case .success(let result):
                if storeKeepsItems { queue.accepted(entry.item.id) }
                finish(entry, .success(result))
            case .failure(let error) where error.code == .notSent:
                requeue.append(entry)
            case .failure(let error):
                configuration.attemptFailed?(error)
                if error.code != .rateLimited {
                    entry.item.attempts += 1
                    // A refusal for the rate stored nothing; other failures may have reached
                    // the server (an answer lost on the way back).
                    entry.item.operation = entry.item.operation.resent
                }
                // Patience runs from the first refusal seen by this outbox (by its clock, not the
                // item's creation time, which may come from another clock or a previous run).
                let now = clock.now()
                if error.code == .rateLimited, entry.rateLimitedSince == nil { entry.rateLimitedSince = now }
                let waited = Duration.seconds(now.timeIntervalSince(entry.rateLimitedSince ?? now))
                if configuration.retry.shouldRetry(error, attempts: entry.item.attempts, waited: waited) {
                    guard machine.isRunning else {
                        // Stopping: the caller hears of it, the row stays for the next start.
                        finish(entry, .failure(error))
                        continue
                    }
                    delay = configuration.retry.delay(afterAttempt: max(1, entry.item.attempts), retryAfter: error.retryAfter,
                                                      random: configuration.random())
                    requeue.append(entry)
                } else {
                    if storeKeepsItems { queue.completed(entry.item.id) }
                    finish(entry, .failure(error))
                }
            }
        }
        if requeue.isEmpty {
            queue.laneDone(key)
        } else {
            let until = delay.map { clock.now().addingTimeInterval($0.timeInterval) }
            queue.putBack(requeue, lane: key, until: until)
            if let until { scheduleTimer(at: until) }
        }
    }

    func perform(_ operation: OutboxOperation) async throws -> OutboxResult {
        switch operation {
        case .message(let envelope):
            return .sent(try await transport.send(envelope))
        case .reaction(let emoji, let messageID, let channel, let added):
            try await transport.setReaction(emoji, on: messageID, in: channel, added: added)
            return .reacted
        }
    }
}
