import ParleyCore

/// Passes everything to `base` and calls `sent` after each accepted message: the test user's
/// side of a Matrix flow test, whose sends the bot is then waited for.
final class MatrixSendCountingTransport: ForwardingTransport {
    let base: any Transport
    private let sent: @Sendable () -> Void

    init(base: any Transport, sent: @escaping @Sendable () -> Void) {
        self.base = base
        self.sent = sent
    }

    func send(_ message: OutgoingEnvelope) async throws -> SendReceipt {
        let receipt = try await base.send(message)
        sent()
        return receipt
    }

    /// A reaction added reaches the bot as an event too, counted like a message.
    func setReaction(_ emoji: String, on messageID: String, in channel: Channel, added: Bool) async throws {
        try await base.setReaction(emoji, on: messageID, in: channel, added: added)
        if added { sent() }
    }

    /// One by one through `send` above, so every message is counted.
    func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] {
        await sendEachInOrder(messages)
    }
}
