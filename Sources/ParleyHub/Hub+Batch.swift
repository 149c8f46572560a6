import ParleyCore
import Synchronization

extension ParleyError.Code {
    /// The core SDK's code for a batch entry skipped after an earlier failure in its channel
    /// (spelled by raw value so this module does not depend on where the constant lives).
    static var batchNotSent: ParleyError.Code { ParleyError.Code(rawValue: "notSent") }
}

extension Hub {
    /// Sends `messages` in order under one lock acquisition and (when persistent) one group
    /// commit, answering each. After a transient failure in a channel (rate limit, network,
    /// lost ack), that channel's later messages are not attempted and answer `notSent`, so
    /// a retry keeps their order; a permanent failure (too large, not found) stops nothing.
    nonisolated(nonsending) func sendBatch(_ messages: [OutgoingEnvelope], via transport: HubTransport) async -> [Result<SendReceipt, ParleyError>] {
        guard !messages.isEmpty else { return [] }
        // In memory every answer is known once the lock is released, slot by slot in order:
        // they go straight into the result, without a shared box to fill and wait on.
        let answers = database != nil ? BatchAnswers(count: messages.count) : nil
        var results: [Result<SendReceipt, ParleyError>] = []
        if answers == nil { results.reserveCapacity(messages.count) }
        func answer(_ slot: Int, _ result: Result<SendReceipt, ParleyError>) {
            if let answers { answers.answer(slot, result) } else { results.append(result) }
        }
        // Answers known before the lock: a message too large, a resend stored long ago. Empty
        // (no allocation) unless there is one.
        var decided: [Int: Result<SendReceipt, ParleyError>] = [:]
        for (slot, message) in messages.enumerated() {
            do {
                try Self.checkSize(of: message, limit: transport.payloadLimit)
                if message.isResend, let stored = try receiptOfOldResend(message, from: transport.userID) { decided[slot] = .success(stored) }
            } catch {
                decided[slot] = .failure(Self.storageError(error))
            }
        }
        if delaying.load(ordering: .acquiring), let delay = state.withLock({ $0.faults.delay }) {
            do { try await hold(transport: transport.id, for: delay) } catch {
                for slot in messages.indices { answer(slot, decided[slot] ?? .failure(Self.storageError(error))) }
                return await answers?.all() ?? results
            }
        }
        let clock = self.clock
        let user = transport.userID
        let startFlush = withDeferredWakes { state -> Bool in
            let now = clock.now()
            var stopped: Set<Channel> = []
            var startFlush = false
            for (slot, message) in messages.enumerated() {
                if !decided.isEmpty, let result = decided[slot] {
                    answer(slot, result)
                    continue
                }
                if !stopped.isEmpty, stopped.contains(message.channel) {
                    answer(slot, .failure(ParleyError(
                        .batchNotSent, "not attempted after an earlier failure in \(message.channel.target)",
                        context: ["channel": message.channel.target])))
                    continue
                }
                let outcome = state.send(message, from: user, transport: transport.id, now: now, waiter: answers.map { .batch($0, slot) })
                switch outcome {
                case .pending(let start, let losesAck):
                    startFlush = startFlush || start
                    if losesAck { stopped.insert(message.channel) }
                default:
                    let result = Result { try Self.answer(outcome, user: user) }.mapError(Self.storageError)
                    if case .failure(let error) = result, error.isTransient { stopped.insert(message.channel) }
                    answer(slot, result)
                }
            }
            return startFlush
        }
        if startFlush { startFlushing() }
        return await answers?.all() ?? results
    }
}
