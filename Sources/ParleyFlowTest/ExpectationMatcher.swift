import ParleyRegex

/// Decides whether one bot output satisfies an `expect:` step, and says why not.
struct ExpectationMatcher: Sendable {
    /// Compiled `matches:` patterns by source, prepared once per file.
    let patterns: [String: Pattern]

    /// Compiles every `matches:` of `file` (validation already reported bad ones; those are skipped).
    init(file: FlowTestFile) {
        var patterns: [String: Pattern] = [:]
        for test in file.tests {
            for step in test.steps {
                guard case .expect(let expectation)? = step.kind, let source = expectation.matches?.value,
                      patterns[source] == nil else { continue }
                patterns[source] = try? Pattern(source)
            }
        }
        self.patterns = patterns
    }

    /// Nil when `output` satisfies `expectation`; otherwise each unmet part, e.g.
    /// `text: expected "pong", got "ping"`.
    func mismatches(_ expectation: Expectation, _ output: BotOutput) -> [String] {
        if let reaction = expectation.reaction?.value {
            guard case .reaction(let emoji, _, let added) = output.kind else {
                return ["expected the reaction \(reaction), got a message"]
            }
            if !added { return ["expected the reaction \(reaction), got \(emoji) taken back"] }
            return emoji == reaction ? [] : ["reaction: expected \(reaction), got \(emoji)"]
        }
        guard case .message(_, _, let replyTo) = output.kind else {
            return ["expected a message, got a reaction"]
        }
        var problems: [String] = []
        let text = output.text ?? ""
        if let expected = expectation.text?.value, text != expected {
            problems.append("text: expected \(Self.quoted(expected)), got \(Self.quoted(text))")
        }
        if let expected = expectation.contains?.value, !text.contains(expected) {
            problems.append("contains: expected the text to contain \(Self.quoted(expected)), got \(Self.quoted(text))")
        }
        if let source = expectation.matches?.value {
            if let pattern = patterns[source] {
                do {
                    if try !pattern.matches(text) {
                        problems.append("matches: expected the text to match /\(source)/, got \(Self.quoted(text))")
                    }
                } catch {
                    problems.append("matches: /\(source)/ could not run on \(Self.quoted(text)): \(error)")
                }
            } else {
                problems.append("matches: /\(source)/ is not a valid regex")
            }
        }
        let card = output.cardName
        if let expected = expectation.card?.value, card != expected {
            problems.append("card: expected \(expected), got " + (card.map { "the card \($0)" } ?? "plain text"))
        }
        if let fields = expectation.fields {
            let actual = output.fields
            for entry in fields.entries {
                let value = actual[entry.name]
                if value != entry.value.value {
                    problems.append("fields.\(entry.name): expected \(Self.quoted(entry.value.value)), got "
                                    + (value.map(Self.quoted) ?? "no such field"))
                }
            }
        }
        if expectation.quote?.value == "last" {
            if replyTo == nil {
                problems.append("quote: expected the message to quote the user's last message, it quotes nothing")
            } else if replyTo != output.lastUserMessageID {
                problems.append("quote: expected the message to quote the user's last message, it quotes another one")
            }
        }
        return problems
    }

    /// `"text"` with quotes, backslashes and line breaks escaped, so blanks stay visible.
    static func quoted(_ text: String) -> String {
        var escaped = "\""
        for character in text {
            switch character {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            default: escaped.append(character)
            }
        }
        return escaped + "\""
    }

    /// The expectation in one line, as the report shows it (`{ to: user:bob, text: "Hi" }`).
    static func describe(_ expectation: Expectation) -> String {
        var parts: [String] = []
        if let to = expectation.to?.value { parts.append("to: \(to)") }
        if expectation.none?.value == true { parts.append("none: true") }
        if let value = expectation.text?.value { parts.append("text: \(quoted(value))") }
        if let value = expectation.contains?.value { parts.append("contains: \(quoted(value))") }
        if let value = expectation.matches?.value { parts.append("matches: \(quoted(value))") }
        if let value = expectation.card?.value { parts.append("card: \(value)") }
        if let fields = expectation.fields {
            parts.append("fields: { " + fields.entries.map { "\($0.name): \(quoted($0.value.value))" }.joined(separator: ", ") + " }")
        }
        if let value = expectation.quote?.value { parts.append("quote: \(value)") }
        if let value = expectation.reaction?.value { parts.append("reaction: \(value)") }
        return "{ " + parts.joined(separator: ", ") + " }"
    }
}
