import Foundation
import ParleyCore

extension HubState {
    /// What became of a send handled under the lock.
    enum SendOutcome: Sendable {
        /// Stored (or delivered, for noPersist) and delivered; `losesAck` says to answer with
        /// `networkUnavailable` anyway (an injected fault).
        case done(SendReceipt, losesAck: Bool)
        case failed(ParleyError)
        /// Waiting for the group commit; `startFlush` when no flush is running yet;
        /// `losesAck` when its receipt will be answered with `networkUnavailable`.
        case pending(startFlush: Bool, losesAck: Bool)
    }

    /// Handles one send from `sender` over `transport`. A persistent hub keeps `waiter`
    /// with the message and answers it after the COMMIT.
    mutating func send(
        _ outgoing: OutgoingEnvelope, from sender: String, transport: Int, now: Date,
        waiter: SendWaiter?
    ) -> SendOutcome {
        if closed { return .failed(ParleyError(.notConnected, "the hub is closed", context: ["user": sender])) }
        let index: Int
        do throws(ParleyError) {
            try requireConnected(transport, user: sender)
            if !faults.isEmpty, let error = faults.failure(user: sender, channel: outgoing.channel) { throw error }
            index = try resolve(outgoing.channel, for: sender)
        } catch {
            return .failed(error)
        }

        // One hash for the common case: claim the key with the receipt this send would get,
        // and put the old one back if it turns out to be a resend (or give the key up if the
        // rate limit refuses the send).
        let receiptKey = ReceiptKey(sender: sender, clientMessageID: outgoing.clientMessageID)
        let seq = channels[index].seq + 1
        let claimed = StoredReceipt(channel: Int32(index), seq: seq, time: now.timeIntervalSinceReferenceDate)
        if let stored = receipts.updateValue(claimed, forKey: receiptKey) {
            receipts[receiptKey] = stored
            return resend(stored, waiter: waiter)
        }
        if let error = takeToken(for: sender, now: now) {
            receipts[receiptKey] = nil
            return .failed(error)
        }
        rememberReceipt(receiptKey)

        channels[index].seq = seq
        let message = HubMessage(
            seq: seq, clientMessageID: outgoing.clientMessageID, sender: sender, timestamp: now,
            payload: outgoing.payload, flags: outgoing.flags, replyTo: outgoing.replyTo,
            visibleTo: outgoing.visibleTo, extensions: outgoing.extensions)
        let losesAck = !faults.lostAcks.isEmpty && faults.losesAck(user: sender)

        guard persistent, let waiter else {
            if !message.flags.contains(.noPersist) { keepInMemory(message, in: index) }
            deliver(message, in: index, from: transport)
            return .done(Self.receipt(index: index, seq: seq, time: now), losesAck: losesAck)
        }
        pending.append(PendingWrite(channel: index, message: message, transport: transport, waiters: [waiter], losesAck: losesAck))
        let startFlush = !flushing
        flushing = true
        return .pending(startFlush: startFlush, losesAck: losesAck)
    }

    /// A resend: the first receipt, once the first send is durable.
    private mutating func resend(_ stored: StoredReceipt, waiter: SendWaiter?) -> SendOutcome {
        let index = Int(stored.channel)
        let receipt = Self.receipt(index: index, seq: stored.seq, time: Date(timeIntervalSinceReferenceDate: stored.time))
        if stored.seq <= channels[index].committedSeq || waiter == nil { return .done(receipt, losesAck: false) }
        if let waiter {
            // Still waiting for its commit (queued, or in the transaction running now).
            if let position = pending.firstIndex(where: { $0.channel == index && $0.message.seq == stored.seq }) {
                pending[position].waiters.append(waiter)
            } else {
                lateWaiters[MessageLocation(channel: index, seq: stored.seq), default: []].append(waiter)
            }
            return .pending(startFlush: false, losesAck: false)
        }
        return .done(receipt, losesAck: false)
    }

    /// Adds a message to an in-memory channel, forgetting the oldest messages of the hub
    /// beyond `memoryHistoryLimit`.
    private mutating func keepInMemory(_ message: HubMessage, in index: Int) {
        channels[index].messages.append(message)
        for (channel, count) in retention.noteMessage(in: index, limit: configuration.memoryHistoryLimit) {
            // `removeFirst` keeps the array's capacity: when most of it would stand empty, a
            // copy of the rest gives the memory back instead.
            let kept = max(0, channels[channel].messages.count - count)
            if kept * 4 < channels[channel].messages.capacity {
                channels[channel].messages = Array(channels[channel].messages.suffix(kept))
            } else {
                channels[channel].messages.removeFirst(channels[channel].messages.count - kept)
            }
        }
    }

    /// Counts a receipt into the window, forgetting the oldest beyond `receiptWindow`. A
    /// persistent hub finds older ones in its file when the sender marks a send as a resend.
    mutating func rememberReceipt(_ key: ReceiptKey) {
        if let old = retention.noteReceipt(key, window: configuration.receiptWindow) { receipts[old] = nil }
    }

    static func receipt(index: Int, seq: Int64, time: Date) -> SendReceipt {
        SendReceipt(messageID: HubMessageID.make(channel: index, seq: seq), seq: seq, timestamp: time)
    }

    /// Takes a rate-limit token for `user`, or returns the `rateLimited` answer.
    private mutating func takeToken(for user: String, now: Date) -> ParleyError? {
        // No limits at all (the usual case) spares hashing the user name on every send.
        if rateLimits.isEmpty, configuration.rateLimit == nil { return nil }
        guard let limit = rateLimits[user] ?? configuration.rateLimit else { return nil }
        let rate = TokenBucket.Rate(perSecond: limit.messagesPerSecond, burst: Double(limit.burst))
        let next = buckets.withBucket(user, rate: rate, at: now) { bucket -> Date? in
            guard let next = bucket.nextAvailable(at: now) else {
                bucket.take(at: now)
                return nil
            }
            return next
        }
        guard let next else { return nil }
        // Rounded up to the millisecond so a retry at exactly that time succeeds; a rate of
        // zero says "in an hour".
        let wait: Duration = limit.messagesPerSecond > 0 ? .milliseconds(Int64((next.timeIntervalSince(now) * 1000).rounded(.up))) : .seconds(3600)
        return ParleyError(.rateLimited, "too many messages", retryAfter: wait, context: ["user": user])
    }
}
