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
        for entry in recorder.entries {
            let sender: String
            switch entry {
            case .userMessage(_, _, _, let who), .userReaction(_, _, _, _, let who): sender = who
            default: continue
            }
            if sender != recorder.userID && !speakers.contains(sender) { speakers.append(sender) }
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

    /// The user (or `speaker`) is about to react with `emoji` to the bot's message
    /// `messageID` in their direct conversation with the bot or in `group` (recorded first: the
    /// bot may answer before the reaction's send returns).
    public func userWillReact(_ emoji: String, on messageID: String, in group: Channel? = nil, as speaker: String? = nil) {
        let speaker = speaker ?? recorder.userID
        recorder.recordUserReaction(emoji, on: messageID, in: group ?? .person(speaker), from: speaker, at: clock.now())
    }

    /// Virtual time is about to move (`/advance 10m` in a chat on a virtual clock). Call it
    /// before moving the clock, so what the move sets off is recorded after it.
    public func advancing(by duration: String, from: Date, to: Date) {
        recorder.recordAdvance(by: duration, from: from, to: to)
    }

    /// The session as a flow-test file.
    public func yaml(profiles: [Profile] = [], testName: String = "recorded session") -> String {
        TestFileWriter.yaml(from: recorder, botID: botID, start: start, profiles: profiles, testName: testName, definition: definition)
    }

    /// Writes the session to `path` (a `*.test.yaml` file).
    public func write(to path: String, profiles: [Profile] = [], testName: String = "recorded session") throws {
        try Data(yaml(profiles: profiles, testName: testName).utf8).write(to: URL(fileURLWithPath: path))
    }
}

/// Writes a recorded session (an `OutputRecorder` fed by a chat) as a flow-test file: each
/// user message becomes a `send` (with `in` and `as` for other channels and speakers), each bot
/// output an exact `expect` (text, card with all its fields, reaction, quote), each clock move
/// an `advance`; `parley test` then passes it as is.
public enum TestFileWriter {
    /// The session as YAML text.
    /// - Parameters:
    ///   - botID: The bot that was talked to.
    ///   - start: The session's start time (the test's `now`).
    ///   - profiles: Profiles to write at file level (users named in the session).
    ///   - testName: The name of the one test written.
    ///   - definition: The bot's definition: its `cards:` are written as `card:` expectations.
    ///     Any card but those and the built-ins is expected by its text.
    public static func yaml(from recorder: OutputRecorder, botID: String, start: Date, profiles: [Profile] = [],
                            testName: String = "recorded session", definition: BotDefinition? = nil) -> String {
        let cards = RecordableCards(definition: definition)
        var lines = [
            "# Recorded by `parley chat --record`; edit freely.",
            "bot: \(scalar(botID))",
            "user: \(scalar(recorder.userID))",
            "now: \(scalar(start.formatted(.iso8601)))",
        ]
        if !profiles.isEmpty {
            lines.append("profiles:")
            for profile in profiles {
                let fields: [(String, String?)] = [("name", profile.name), ("avatar", profile.avatar), ("phone", profile.phone),
                                                   ("email", profile.email), ("org", profile.org), ("title", profile.title)]
                let present = fields.compactMap { key, value in value.map { "\(key): \(scalar($0))" } }
                lines.append("  \(key(profile.id)): { " + present.joined(separator: ", ") + " }")
            }
        }
        lines += ["tests:", "  - name: \(scalar(testName))", "    steps:"]
        let direct = Channel.person(recorder.userID)
        let outputs = recorder.outputs
        for entry in recorder.entries {
            switch entry {
            case .userMessage(let text, let channel, _, let sender):
                lines.append("      - send: " + spoken(text, key: "text", in: channel, from: sender, user: recorder.userID))
            case .userReaction(let emoji, _, let channel, _, let sender):
                lines.append("      - react: " + spoken(emoji, key: "emoji", in: channel, from: sender, user: recorder.userID))
            case .output(let index):
                let output = outputs[index]
                guard let expectation = expectation(for: output, direct: direct, cards: cards) else {
                    lines.append("      # not expressible as a step: \(describe(output))")
                    continue
                }
                if let card = output.cardName, cards.name(of: output) == nil {
                    lines.append("      # a \(scalar(card)) card, which a test cannot name: expected by its text")
                }
                lines.append("      - expect: { " + expectation.joined(separator: ", ") + " }")
            case .advanced(let duration, _, _):
                lines.append("      - advance: \(scalar(duration))")
            case .restarted:
                lines.append("      - restart: true")
            case .log:
                continue
            case .sendFailed(let message, let channel, _):
                lines.append("      # \(channel.target): \(message.replacingOccurrences(of: "\n", with: " "))")
            }
        }
        // Nothing more in the direct conversation: what the session showed is all the bot did.
        lines.append("      - expect: { none: true }")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A `send:` or `react:` value (`key`: `text` or `emoji`): the bare value for the test
    /// user's direct conversation, else a mapping with `in` (a group) and `as` (another
    /// speaker, whose direct conversation is the default).
    private static func spoken(_ value: String, key: String, in channel: Channel, from sender: String, user: String) -> String {
        if sender == user && channel == .person(user) { return scalar(value) }
        var parts = ["\(key): \(scalar(value))"]
        if channel.kind == .group { parts.append("in: \(scalar(channel.target))") }
        if sender != user { parts.append("as: \(scalar(sender))") }
        return "{ " + parts.joined(separator: ", ") + " }"
    }

    /// The keys of an exact expectation for `output`; nil for a reaction taken back.
    private static func expectation(for output: BotOutput, direct: Channel, cards: RecordableCards) -> [String]? {
        var parts: [String] = []
        if output.channel != direct { parts.append("to: \(scalar(output.channel.target))") }
        switch output.kind {
        case .reaction(let emoji, _, let added):
            guard added else { return nil }
            parts.append("reaction: \(scalar(emoji))")
        case .message(_, _, let replyTo):
            if let card = cards.name(of: output) {
                parts.append("card: \(scalar(card))")
                let fields = output.fields.sorted { $0.key < $1.key }
                if !fields.isEmpty {
                    parts.append("fields: { " + fields.map { "\(key($0.key)): \(scalar($0.value))" }.joined(separator: ", ") + " }")
                }
            } else {
                parts.append("text: \(scalar(output.text ?? ""))")
            }
            if replyTo != nil, replyTo == output.lastUserMessageID { parts.append("quote: last") }
        }
        return parts
    }

    private static func describe(_ output: BotOutput) -> String {
        if case .reaction(let emoji, _, _) = output.kind { return "reaction \(emoji) taken back in \(output.channel.target)" }
        return "output in \(output.channel.target)"
    }

    /// A double-quoted YAML scalar: always quoted, so no text can turn into a number, a
    /// boolean, a comment or a flow collection. A `${` of the text is written `$${`: the test
    /// file's reader would otherwise replace it from the environment (refusing the file, or
    /// replaying an environment value).
    static func scalar(_ text: String) -> String {
        var quoted = "\""
        let units = Array(text.unicodeScalars)
        for (index, unit) in units.enumerated() {
            switch unit {
            case "$" where index + 1 < units.count && units[index + 1] == "{": quoted += "$$"
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\t": quoted += "\\t"
            case "\r": quoted += "\\r"
            default:
                if unit.value < 0x20 || unit.value == 0x7F || (0x80...0x9F).contains(unit.value) || unit == "\u{FEFF}" {
                    quoted += "\\u" + String(repeating: "0", count: 4 - String(unit.value, radix: 16).count)
                        + String(unit.value, radix: 16, uppercase: true)
                } else {
                    quoted.unicodeScalars.append(unit)
                }
            }
        }
        return quoted + "\""
    }

    /// A mapping key: plain when it is a simple name, quoted otherwise.
    static func key(_ text: String) -> String {
        let simple = !text.isEmpty && text.unicodeScalars.allSatisfy { ($0.properties.isAlphabetic && $0.isASCII) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" }
            && !(text.first.map { $0.isNumber || $0 == "-" } ?? true)
        return simple ? text : scalar(text)
    }
}
