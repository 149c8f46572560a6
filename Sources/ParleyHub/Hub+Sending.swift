import Foundation
import ParleyCore
import Synchronization

extension Hub {
    /// Handles a send of `transport`: faults, validation, idempotency, rate limit, storage,
    /// delivery. Persistent hubs answer after the group commit that makes it durable.
    func send(_ outgoing: OutgoingEnvelope, via transport: HubTransport) async throws -> SendReceipt {
        try Self.checkSize(of: outgoing, limit: transport.payloadLimit)
        // The flag spares every send a second trip through the lock when no delay is set.
        if delaying.load(ordering: .acquiring), let delay = state.withLock({ $0.faults.delay }) {
            try await hold(transport: transport.id, for: delay)
        }
        if outgoing.isResend, let stored = try receiptOfOldResend(outgoing, from: transport.userID) { return stored }
        // The time is read under the lock, so timestamps never go backwards along seq.
        let clock = self.clock
        guard database != nil else {
            let outcome = withDeferredWakes { $0.send(outgoing, from: transport.userID, transport: transport.id, now: clock.now(), waiter: nil) }
            return try Self.answer(outcome, user: transport.userID)
        }
        return try await withCheckedThrowingContinuation { waiter in
            let outcome = state.withLock { $0.send(outgoing, from: transport.userID, transport: transport.id, now: clock.now(), waiter: .single(waiter)) }
            switch outcome {
            case .pending(let startFlush, _):
                if startFlush { startFlushing() }
            default:
                waiter.resume(with: Result { try Self.answer(outcome, user: transport.userID) })
            }
        }
    }

    /// The receipt of a resend whose first send is stored but no longer among the receipts kept
    /// in memory (a persistent hub keeps the newest `receiptWindow`): read from the file. Nil
    /// when memory answers, or when it was never stored (it is sent as new).
    func receiptOfOldResend(_ outgoing: OutgoingEnvelope, from user: String) throws -> SendReceipt? {
        guard let database else { return nil }
        let index: Int? = state.withLock { state in
            guard state.receipts[HubState.ReceiptKey(sender: user, clientMessageID: outgoing.clientMessageID)] == nil else { return nil }
            return state.existingIndex(of: outgoing.channel, for: user)
        }
        guard let index else { return nil }
        return try database.receipt(channel: index, sender: user, clientMessageID: outgoing.clientMessageID)
    }

    /// Runs `body` under the state lock with consumers' wake-ups held back, then wakes them:
    /// a woken consumer that sends at once would otherwise find the lock still taken.
    func withDeferredWakes<Value>(_ body: (inout HubState) -> Value) -> Value {
        let (value, wakes) = state.withLock { state in
            state.deferredWakes = []
            defer { state.deferredWakes = nil }
            return (body(&state), state.deferredWakes ?? [])
        }
        for queue in wakes { queue.wake() }
        return value
    }

    /// `withDeferredWakes` if the state lock is free now, else nil (and `body` not run).
    func withDeferredWakesIfAvailable<Value>(_ body: (inout HubState) -> Value) -> Value? {
        let taken = state.withLockIfAvailable { state in
            state.deferredWakes = []
            defer { state.deferredWakes = nil }
            return (body(&state), state.deferredWakes ?? [])
        }
        guard let (value, wakes) = taken else { return nil }
        for queue in wakes { queue.wake() }
        return value
    }

    /// The receipt of a finished send, or its error.
    static func answer(_ outcome: HubState.SendOutcome, user: String) throws -> SendReceipt {
        switch outcome {
        case .done(let receipt, let losesAck):
            if losesAck {
                throw ParleyError(.networkUnavailable, "connection lost before the receipt arrived", context: ["user": user])
            }
            return receipt
        case .failed(let error):
            throw error
        case .pending:
            throw ParleyError(.serverError, "send left pending without a store", context: ["user": user])
        }
    }

    /// `messageTooLarge` when the payload's canonical JSON exceeds `limit`. Cheap upper
    /// bounds settle almost every message (first without reading strings, then reading
    /// them); only near the limit is the payload encoded.
    static func checkSize(of outgoing: OutgoingEnvelope, limit: Int) throws {
        guard outgoing.payload.canonicalSizeBound(scanning: false) > limit,
              outgoing.payload.canonicalSizeBound() > limit else { return }
        let size = outgoing.payload.jsonData().count
        guard size > limit else { return }
        throw ParleyError(
            .messageTooLarge, "payload is \(size) bytes, the limit is \(limit)",
            context: ["channel": outgoing.channel.target, "size": String(size), "limit": String(limit)])
    }

    /// Holds a send for an injected delay on the hub clock. Dropping the connection
    /// meanwhile fails it with `networkUnavailable` at once.
    func hold(transport: Int, for delay: Duration) async throws {
        let clock = self.clock
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let token: Int? = state.withLock { state in
                guard !state.dropped.contains(transport) else { return nil }
                state.nextToken += 1
                state.inFlight[state.nextToken] = InFlightSend(transport: transport, continuation: continuation)
                return state.nextToken
            }
            guard let token else {
                continuation.resume(throwing: ParleyError(.networkUnavailable, "connection dropped"))
                return
            }
            let deadline = clock.now().addingTimeInterval(delay.timeInterval)
            Task { [self] in
                var slept: Result<Void, any Error> = .success(())
                do { try await clock.sleep(until: deadline) } catch {
                    slept = .failure(ParleyError(.cancelled, "delayed send cancelled"))
                }
                let held = state.withLock { $0.inFlight.removeValue(forKey: token) }
                held?.continuation.resume(with: slept)
            }
        }
    }
}
