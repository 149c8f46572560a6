/// An agent's ticket command as typed after the bot's prefix: `take N`, `reply N TEXT`,
/// `resolve N`.
struct AgentCommand: Sendable, Hashable {
    enum Verb: String, Sendable { case take, reply, resolve }

    var verb: Verb
    /// Nil when the word after the verb is missing or not a number.
    var ticket: Int?
    /// The rest of the line after the ticket number (what `reply` relays).
    var text: String?

    /// Nil for any other text. Every message with the prefix passes through here, so the
    /// verb is checked before the line is split.
    init?(_ line: String, prefix: String) {
        guard line.hasPrefix(prefix) else { return nil }
        let body = line.dropFirst(prefix.count)
        guard let verb = Verb(rawValue: String(body.prefix { $0 != " " })) else { return nil }
        let words = body.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        self.verb = verb
        ticket = words.count >= 2 ? Int(words[1]) : nil
        text = words.count == 3 ? String(words[2]) : nil
    }

    /// The ticket as a log field.
    var ticketField: String { ticket.map(String.init) ?? "-" }
}
