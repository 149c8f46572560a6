import Foundation
import ParleyCore
import ParleyHub
import Synchronization

/// The bot's real hub transport, with the hub's own fault injection armed before every
/// `every`-th send: alternately a failed send (`networkUnavailable`) and a lost receipt
/// (stored and delivered, but the sender hears `networkUnavailable`). Spreads the faults
/// over the whole broadcast instead of bunching them at its start.
final class FaultSpreadingTransport: Transport {
    let base: HubTransport
    let hub: Hub
    let every: Int
    private let count = Mutex(0)

    init(base: HubTransport, hub: Hub, every: Int) {
        self.base = base
        self.hub = hub
        self.every = every
    }

    var userID: String { base.userID }
    var payloadLimit: Int { base.payloadLimit }
    var concurrentSends: Int { base.concurrentSends }
    /// Faults armed so far.
    var injected: Int { count.withLock { $0 / every } }

    func connect() async throws -> AsyncStream<TransportEvent> { try await base.connect() }
    func disconnect() async { await base.disconnect() }

    func send(_ message: OutgoingEnvelope) async throws -> SendReceipt {
        let number = count.withLock { count in
            count += 1
            return count
        }
        if number % every == 0 {
            if (number / every) % 2 == 0 {
                hub.failNextSends(1, with: ParleyError(.networkUnavailable, "injected"), from: userID)
            } else {
                hub.loseNextAcks(1, from: userID)
            }
        }
        return try await base.send(message)
    }

    /// One by one through `send` above, so every message is subject to the faults.
    func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] {
        await sendEachInOrder(messages)
    }

    func setReaction(_ emoji: String, on messageID: String, in channel: Channel, added: Bool) async throws {
        try await base.setReaction(emoji, on: messageID, in: channel, added: added)
    }
    func history(of channel: Channel, after seq: Int64, limit: Int) async throws -> [Envelope] {
        try await base.history(of: channel, after: seq, limit: limit)
    }
    func profiles(of userIDs: [String]) async throws -> [Profile] { try await base.profiles(of: userIDs) }
    func members(of channel: Channel) async throws -> [String] { try await base.members(of: channel) }
}
