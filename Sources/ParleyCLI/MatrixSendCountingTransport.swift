import ParleyCore

/// Passes everything to `base` and calls `sent` after each accepted message: the test user's
/// side of a Matrix flow test, whose sends the bot is then waited for.
final class MatrixSendCountingTransport: Transport {
    let base: any Transport
    private let sent: @Sendable () -> Void

    init(base: any Transport, sent: @escaping @Sendable () -> Void) {
        self.base = base
        self.sent = sent
    }

    var userID: String { base.userID }
    var payloadLimit: Int { base.payloadLimit }
    var concurrentSends: Int { base.concurrentSends }

    func connect() async throws -> AsyncStream<TransportEvent> { try await base.connect() }

    func disconnect() async { await base.disconnect() }

    func send(_ message: OutgoingEnvelope) async throws -> SendReceipt {
        let receipt = try await base.send(message)
        sent()
        return receipt
    }

    /// One by one through `send` above, so every message is counted.
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
