import Foundation
import ParleyCore
import Synchronization

/// One thing the bot did, as the runner saw it on the bot's transport.
public struct BotOutput: Sendable {
    /// What was done.
    public enum Kind: Sendable {
        /// A message with its wire payload; `replyTo` is the id of the quoted message.
        case message(payload: JSONValue, messageID: String, replyTo: String?)
        /// A reaction added (or, with `added == false`, removed) on a message.
        case reaction(emoji: String, messageID: String, added: Bool)
    }

    /// The channel as the bot names it (`user:alice` is the direct conversation with alice).
    public var channel: Channel
    /// A message or a reaction.
    public var kind: Kind
    /// Virtual time of the output.
    public var time: Date
    /// The id of the test user's latest message in this channel when the output was made
    /// (what `quote: last` compares with).
    public var lastUserMessageID: String?
    /// The number of that message in the recorder (its id may arrive after the output).
    var lastUserMessage: Int?

    /// An output; the recorder fills in which user message it followed.
    public init(channel: Channel, kind: Kind, time: Date) {
        self.channel = channel
        self.kind = kind
        self.time = time
    }

    /// The text that `text`, `contains` and `matches` look at: a text message's text, a card's
    /// `text` field, else the card's fallback. Nil for reactions.
    public var text: String? {
        guard case .message(let payload, _, _) = kind, let object = payload.objectValue else { return nil }
        return object["text"]?.stringValue ?? object["fallback"]?.stringValue
    }

    /// The card name (`greeting`, `order`, …); nil for plain text and reactions.
    public var cardName: String? {
        guard case .message(let payload, _, _) = kind else { return nil }
        return payload.objectValue?["card"]?.stringValue
    }

    /// A card's fields as text (strings as they are, other values as compact JSON), without
    /// the reserved `type`, `fallback` and `card`.
    public var fields: [String: String] {
        guard case .message(let payload, _, _) = kind, let object = payload.objectValue else { return [:] }
        var fields: [String: String] = [:]
        for (key, value) in object where !Self.reservedKeys.contains(key) {
            switch value {
            case .string(let text): fields[key] = text
            case .null: continue
            default: fields[key] = value.jsonString()
            }
        }
        return fields
    }

    static let reservedKeys: Set<String> = ["type", "fallback", "card"]
}

/// Collects one test's conversation: what the user said, what the bot did (one ordered queue
/// per channel that `expect` steps consume), clock moves and failed sends, for matching and
/// for the failure transcript. Thread-safe: the bot's transport records from any task.
public final class OutputRecorder: Sendable {
    private struct State {
        var entries: [TranscriptEntry] = []
        var outputs: [BotOutput] = []
        var queues: [Channel: [Int]] = [:]
        var consumed: [Channel: Int] = [:]
        /// Index into `userMessageIDs` of the user's latest message per channel.
        var lastUserMessage: [Channel: Int] = [:]
        /// Server ids of the user's messages, in order (nil until the hub answered).
        var userMessageIDs: [String?] = []
        var texts: [String: String] = [:]
        var sentIDs: Set<UUID> = []
        /// Id of the bot's latest message per channel (what a user's `react` is on).
        var lastBotMessage: [Channel: String] = [:]

        /// `output` with the id of the user message it followed filled in.
        func resolved(_ output: BotOutput) -> BotOutput {
            var output = output
            if let number = output.lastUserMessage { output.lastUserMessageID = userMessageIDs[number] }
            return output
        }
    }

    private let state = Mutex(State())
    /// The user who talks; user messages are recorded under the channel as the bot names it.
    public let userID: String

    /// A recorder for a test where `userID` talks.
    public init(userID: String) { self.userID = userID }

    // MARK: - Recording

    /// The test user (or `speaker`) is about to send `text` in `channel` (as the bot names it:
    /// a speaker's direct conversation is `.person(speaker)`). Recorded before the send, since
    /// the bot may answer before the send returns; `userMessageSent` adds the server's id.
    /// Returns the message's number.
    public func recordUserMessage(_ text: String, in channel: Channel, from speaker: String? = nil, at time: Date) -> Int {
        state.withLock { state in
            state.entries.append(.userMessage(text: text, channel: channel, time: time, sender: speaker ?? userID))
            state.lastUserMessage[channel] = state.userMessageIDs.count
            state.userMessageIDs.append(nil)
            return state.userMessageIDs.count - 1
        }
    }

    /// The hub accepted the user's message `number` as `id`.
    public func userMessageSent(_ number: Int, id: String, text: String) {
        state.withLock { state in
            guard state.userMessageIDs.indices.contains(number) else { return }
            state.userMessageIDs[number] = id
            state.texts[id] = text
        }
    }

    /// The bot produced `output`. A resend of the same client message number (the outbox
    /// retrying after a lost receipt) is the same output and is recorded once.
    public func record(_ output: BotOutput, clientMessageID: UUID? = nil) {
        state.withLock { state in
            if let clientMessageID, !state.sentIDs.insert(clientMessageID).inserted { return }
            var output = output
            output.lastUserMessage = state.lastUserMessage[output.channel]
            if case .message(_, let id, _) = output.kind {
                if let text = output.text { state.texts[id] = text }
                state.lastBotMessage[output.channel] = id
            }
            state.queues[output.channel, default: []].append(state.outputs.count)
            state.entries.append(.output(index: state.outputs.count))
            state.outputs.append(output)
        }
    }

    /// The test user (or `speaker`) is about to react with `emoji` to the bot's message
    /// `messageID` in `channel` (as the bot names it). Recorded before the reaction is sent,
    /// since the bot may answer before the server returns.
    public func recordUserReaction(_ emoji: String, on messageID: String, in channel: Channel, from speaker: String? = nil, at time: Date) {
        state.withLock {
            $0.entries.append(.userReaction(emoji: emoji, messageID: messageID, channel: channel, time: time, sender: speaker ?? userID))
        }
    }

    /// The id of the bot's latest message in `channel` (as the bot names it), if it sent one.
    public func lastBotMessage(in channel: Channel) -> String? { state.withLock { $0.lastBotMessage[channel] } }

    /// A send or reaction of the bot failed at the transport.
    public func recordFailure(_ message: String, in channel: Channel, at time: Date) {
        state.withLock { $0.entries.append(.sendFailed(message: message, channel: channel, time: time)) }
    }

    /// A line of the engine's log (a warning or an error) at `time`.
    public func recordLog(_ line: String, at time: Date) {
        state.withLock { $0.entries.append(.log(line: line, time: time)) }
    }

    /// The bot stopped and started again at `time` (`restart: true`).
    public func recordRestart(at time: Date) {
        state.withLock { $0.entries.append(.restarted(time: time)) }
    }

    /// The virtual clock moved from `from` to `to`.
    public func recordAdvance(by duration: String, from: Date, to: Date) {
        state.withLock { $0.entries.append(.advanced(duration: duration, from: from, to: to)) }
    }

    // MARK: - Consuming

    /// Takes the next unconsumed output of `channel`, if there is one.
    public func next(in channel: Channel) -> BotOutput? {
        state.withLock { state in
            let taken = state.consumed[channel, default: 0]
            guard let queue = state.queues[channel], taken < queue.count else { return nil }
            state.consumed[channel] = taken + 1
            return state.resolved(state.outputs[queue[taken]])
        }
    }

    /// Outputs of `channel` not consumed yet, oldest first.
    public func pending(in channel: Channel) -> [BotOutput] {
        state.withLock { state in
            guard let queue = state.queues[channel] else { return [] }
            return queue[state.consumed[channel, default: 0]...].map { state.resolved(state.outputs[$0]) }
        }
    }

    /// Every output so far, in the order they were made.
    public var outputs: [BotOutput] { state.withLock { state in state.outputs.map { state.resolved($0) } } }

    /// Everything so far, in order.
    public var entries: [TranscriptEntry] { state.withLock { $0.entries } }

    /// The text of a recorded message (the user's or the bot's), for showing what a reaction is on.
    public func text(ofMessage id: String) -> String? { state.withLock { $0.texts[id] } }
}

/// One line of a test's transcript.
public enum TranscriptEntry: Sendable {
    /// The test user, or another user who speaks in the test (`sender`), sent a message.
    case userMessage(text: String, channel: Channel, time: Date, sender: String)
    /// The test user, or another user (`sender`), reacted with `emoji` to the bot's message `messageID`.
    case userReaction(emoji: String, messageID: String, channel: Channel, time: Date, sender: String)
    /// The bot's output number `index` (into `OutputRecorder.outputs`).
    case output(index: Int)
    /// A send of the bot failed.
    case sendFailed(message: String, channel: Channel, time: Date)
    /// A line of the engine's log.
    case log(line: String, time: Date)
    /// An `advance` step moved the clock.
    case advanced(duration: String, from: Date, to: Date)
    /// A `restart` step stopped the bot and started it again.
    case restarted(time: Date)
}

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
