import Foundation
import ParleyBots
import ParleyCore

/// Writes a recorded session (an `OutputRecorder` fed by a chat) as a flow-test file: each
/// user message becomes a `send` (with `in` and `as` for other channels and speakers), each bot
/// output an exact `expect` (text, card with all its fields, reaction, quote), each clock move
/// an `advance`; `parley test` then passes it as is.
public enum FlowTestWriter {
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
                lines.append("      - send: " + send(text, in: channel, from: sender, user: recorder.userID))
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

    /// A `send:` value: the bare text for the test user's direct conversation, else a mapping
    /// with `in` (a group) and `as` (another speaker, whose direct conversation is the default).
    private static func send(_ text: String, in channel: Channel, from sender: String, user: String) -> String {
        if sender == user && channel == .person(user) { return scalar(text) }
        var parts = ["text: \(scalar(text))"]
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
