import Foundation
import ParleyCore

/// The bot's transport in a flow test: passes everything to the hub's transport and records
/// each accepted send and reaction (and each failed one) in an `OutputRecorder`.
public final class RecordingTransport: ForwardingTransport {
    /// The real connection.
    public let base: any Transport
    /// Where outputs go.
    public let recorder: OutputRecorder
    private let clock: any ParleyClock

    /// Wraps `base`; reactions are stamped with `clock` (sends with the server's time).
    public init(base: any Transport, recorder: OutputRecorder, clock: any ParleyClock) {
        self.base = base
        self.recorder = recorder
        self.clock = clock
    }

    public func send(_ message: OutgoingEnvelope) async throws -> SendReceipt {
        do {
            let receipt = try await base.send(message)
            recorder.record(BotOutput(channel: message.channel,
                                      kind: .message(payload: message.payload, messageID: receipt.messageID,
                                                     replyTo: message.replyTo?.messageID),
                                      time: receipt.timestamp),
                            clientMessageID: message.clientMessageID)
            return receipt
        } catch {
            recorder.recordFailure("send failed: \(error)", in: message.channel, at: clock.now())
            throw error
        }
    }

    /// One by one through `send` above, so every message is recorded.
    public func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] {
        await sendEachInOrder(messages)
    }

    public func setReaction(_ emoji: String, on messageID: String, in channel: Channel, added: Bool) async throws {
        do {
            try await base.setReaction(emoji, on: messageID, in: channel, added: added)
            recorder.record(BotOutput(channel: channel, kind: .reaction(emoji: emoji, messageID: messageID, added: added),
                                      time: clock.now()))
        } catch {
            recorder.recordFailure("reaction \(emoji) failed: \(error)", in: channel, at: clock.now())
            throw error
        }
    }
}
