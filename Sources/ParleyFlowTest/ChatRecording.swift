import Foundation
import ParleyBots
import ParleyCore

/// Records an interactive session (`parley chat --record FILE.test.yaml`) so it can be written
/// as a flow-test file that `parley test` passes unchanged.
///
/// The chat wraps the bot's transport with `botTransport(wrapping:)`, sends the user's lines
/// (and an agent's, `as:`) through `send(_:in:as:via:)` (or reports them with `userWillSend` /
/// `userSent`), reports clock moves with `advancing(by:from:to:)`, and at the end calls
/// `write(to:profiles:)` with the profiles of the user and of `speakers`.
public final class ChatRecording: Sendable {
    /// What was said and done, in order.
    public let recorder: OutputRecorder
    /// The bot talked to.
    public let botID: String
    /// When the session started (the file's `now`).
    public let start: Date
    /// The bot's definition: its `cards:` may be written as `card:` expectations.
    public let definition: BotDefinition?
    private let clock: any ParleyClock

    /// Starts recording a session between `userID` and `botID` (defined by `definition`, whose
    /// cards a test may name; without it only the built-in cards are) at `clock`'s now.
    public init(botID: String, userID: String, clock: any ParleyClock, definition: BotDefinition? = nil) {
        self.botID = botID
        self.clock = clock
        self.definition = definition
        recorder = OutputRecorder(userID: userID)
        start = clock.now()
    }

    /// The users other than `userID` who spoke (`as:`), in order: the written test needs
    /// their profiles too, to replay what the bot said about them.
    public var speakers: [String] {
        var speakers: [String] = []
        for case .userMessage(_, _, _, let sender) in recorder.entries where sender != recorder.userID && !speakers.contains(sender) {
            speakers.append(sender)
        }
        return speakers
    }

    /// The bot's transport, recording every send and reaction; give it to the bot host.
    public func botTransport(wrapping transport: any Transport) -> RecordingTransport {
        RecordingTransport(base: transport, recorder: recorder, clock: clock)
    }

    /// The user (or `speaker`, another user such as an agent) is about to send `text` in their
    /// direct conversation with the bot or in `group`. Returns a number for `userSent`
    /// (recorded first: the bot may answer before the send returns).
    public func userWillSend(_ text: String, in group: Channel? = nil, as speaker: String? = nil) -> Int {
        let speaker = speaker ?? recorder.userID
        return recorder.recordUserMessage(text, in: group ?? .person(speaker), from: speaker, at: clock.now())
    }

    /// The server accepted the user's message `number` as `messageID`.
    public func userSent(_ number: Int, messageID: String, text: String) {
        recorder.userMessageSent(number, id: messageID, text: text)
    }

    /// Sends `text` as the user (or `speaker`) through that user's own `transport` and records it.
    @discardableResult
    public func send(_ text: String, in group: Channel? = nil, as speaker: String? = nil, via transport: any Transport) async throws -> SendReceipt {
        let number = userWillSend(text, in: group, as: speaker)
        let receipt = try await transport.send(OutgoingEnvelope(channel: group ?? .person(botID), clientMessageID: UUID(),
                                                                payload: TextContent(text).encoded()))
        userSent(number, messageID: receipt.messageID, text: text)
        return receipt
    }

    /// Virtual time is about to move (`/advance 10m` in a chat on a virtual clock). Call it
    /// before moving the clock, so what the move sets off is recorded after it.
    public func advancing(by duration: String, from: Date, to: Date) {
        recorder.recordAdvance(by: duration, from: from, to: to)
    }

    /// The session as a flow-test file.
    public func yaml(profiles: [Profile] = [], testName: String = "recorded session") -> String {
        FlowTestWriter.yaml(from: recorder, botID: botID, start: start, profiles: profiles, testName: testName, definition: definition)
    }

    /// Writes the session to `path` (a `*.test.yaml` file).
    public func write(to path: String, profiles: [Profile] = [], testName: String = "recorded session") throws {
        try Data(yaml(profiles: profiles, testName: testName).utf8).write(to: URL(fileURLWithPath: path))
    }
}
