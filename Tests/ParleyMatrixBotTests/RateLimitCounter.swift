import ParleyCore
import Synchronization

/// Passes everything to `base`, counting the sends the server refused with `rateLimited`
/// (proof that a test really ran into the homeserver's limit) and the most sends in flight.
/// A batch goes room by room, `concurrentRooms` at once, as `MatrixTransport.sendBatch` does,
/// but through this wrapper's `send` so every request is counted.
final class RateLimitCounter: Transport {
    let base: any Transport
    let concurrentRooms: Int
    let refused = Atomic<Int>(0)
    let inFlight = Atomic<Int>(0)
    let mostInFlight = Atomic<Int>(0)

    init(_ base: any Transport, concurrentRooms: Int) {
        self.base = base
        self.concurrentRooms = concurrentRooms
    }

    var userID: String { base.userID }
    var payloadLimit: Int { base.payloadLimit }
    var concurrentSends: Int { base.concurrentSends }

    func connect() async throws -> AsyncStream<TransportEvent> { try await base.connect() }
    func disconnect() async { await base.disconnect() }

    func send(_ message: OutgoingEnvelope) async throws -> SendReceipt {
        let now = inFlight.add(1, ordering: .sequentiallyConsistent).newValue
        mostInFlight.max(now, ordering: .sequentiallyConsistent)
        defer { inFlight.subtract(1, ordering: .sequentiallyConsistent) }
        do {
            return try await base.send(message)
        } catch let error as ParleyError where error.code == .rateLimited {
            refused.add(1, ordering: .relaxed)
            throw error
        }
    }

    func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] {
        await sendBatchByChannel(messages, concurrentChannels: concurrentRooms)
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
