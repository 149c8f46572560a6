import ParleyCore

/// Passes everything to `base` and reports each accepted message (with the server's id) and
/// each accepted reaction: a person's side of a Matrix flow test, whose sends the bot is then
/// waited for.
final class MatrixSendCountingTransport: ForwardingTransport {
    /// What the server accepted.
    enum Accepted: Sendable {
        case message(id: String)
        case reaction
    }

    let base: any Transport
    private let accepted: @Sendable (Accepted) -> Void

    init(base: any Transport, accepted: @escaping @Sendable (Accepted) -> Void) {
        self.base = base
        self.accepted = accepted
    }

    func send(_ message: OutgoingEnvelope) async throws -> SendReceipt {
        let receipt = try await base.send(message)
        accepted(.message(id: receipt.messageID))
        return receipt
    }

    /// A reaction added reaches the bot as an event too.
    func setReaction(_ emoji: String, on messageID: String, in channel: Channel, added: Bool) async throws {
        try await base.setReaction(emoji, on: messageID, in: channel, added: added)
        if added { accepted(.reaction) }
    }

    /// One by one through `send` above, so every message is reported.
    func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] {
        await sendEachInOrder(messages)
    }
}
