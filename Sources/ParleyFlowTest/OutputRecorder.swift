import Foundation
import ParleyCore
import Synchronization

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
            if case .message(_, let id, _) = output.kind, let text = output.text { state.texts[id] = text }
            state.queues[output.channel, default: []].append(state.outputs.count)
            state.entries.append(.output(index: state.outputs.count))
            state.outputs.append(output)
        }
    }

    /// A send or reaction of the bot failed at the transport.
    public func recordFailure(_ message: String, in channel: Channel, at time: Date) {
        state.withLock { $0.entries.append(.sendFailed(message: message, channel: channel, time: time)) }
    }

    /// A line of the engine's log (a warning or an error) at `time`.
    public func recordLog(_ line: String, at time: Date) {
        state.withLock { $0.entries.append(.log(line: line, time: time)) }
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
