import Foundation
import ParleyCore

/// Turns a recorder's entries into the lines of a failure report.
struct TranscriptRenderer {
    let recorder: OutputRecorder
    let botID: String
    let start: Date

    /// One line per entry, after a line naming the start time.
    func lines() -> [String] {
        let outputs = recorder.outputs
        var lines = ["clock starts at \(Self.stamp(start))"]
        for entry in recorder.entries {
            switch entry {
            case .userMessage(let text, let channel, let time, let sender):
                let place = channel.kind == .group ? " in \(channel.target)" : ""
                lines.append("\(Self.time(time))  \(sender)\(place): \(ExpectationMatcher.quoted(text))")
            case .output(let index):
                let output = outputs[index]
                lines.append("\(Self.time(output.time))  \(botID) → \(output.channel.target): \(describe(output))")
            case .sendFailed(let message, let channel, let time):
                lines.append("\(Self.time(time))  \(botID) → \(channel.target): \(message)")
            case .log(let line, let time):
                lines.append("\(Self.time(time))  log: \(line)")
            case .advanced(let duration, let from, let to):
                lines.append("\(Self.time(from))  clock advances \(duration) to \(Self.stamp(to))")
            }
        }
        if lines.count == 1 { lines.append("(nothing happened)") }
        return lines
    }

    /// An output in one line: a quoted text, `card NAME { field: "value", … }` or a reaction.
    func describe(_ output: BotOutput) -> String {
        switch output.kind {
        case .reaction(let emoji, let messageID, let added):
            let target = recorder.text(ofMessage: messageID).map { " on " + ExpectationMatcher.quoted($0) } ?? ""
            return (added ? "reaction \(emoji)" : "reaction \(emoji) taken back") + target
        case .message(_, _, let replyTo):
            var text: String
            if let card = output.cardName {
                let fields = output.fields.sorted { $0.key < $1.key }
                text = "card \(card) { " + fields.map { "\($0.key): \(ExpectationMatcher.quoted($0.value))" }.joined(separator: ", ") + " }"
            } else {
                text = ExpectationMatcher.quoted(output.text ?? "")
            }
            if let replyTo {
                let quoted = recorder.text(ofMessage: replyTo).map(ExpectationMatcher.quoted) ?? "a message"
                text += " (quoting \(quoted)" + (replyTo == output.lastUserMessageID ? ", the user's last message)" : ")")
            }
            return text
        }
    }

    static func stamp(_ date: Date) -> String { date.formatted(.iso8601) }

    static func time(_ date: Date) -> String {
        date.formatted(.iso8601.time(includingFractionalSeconds: false))
    }
}
