/// An agent's command as typed after the bot's prefix: `take N`, `reply N TEXT`, `resolve N`,
/// `transfer N QUEUE [NOTE]`, `note N TEXT`, and without a ticket `tickets`, `available`, `away`.
struct AgentCommand: Sendable, Hashable {
    enum Verb: String, Sendable { case take, reply, resolve, transfer, note, tickets, available, away }

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

    /// Whether the verb names a ticket (`tickets`, `available` and `away` do not).
    var needsTicket: Bool { ![.tickets, .available, .away].contains(verb) }

    /// The action on the ticket it names; nil for the verbs without one, or with text missing.
    var action: TicketAction? {
        switch verb {
        case .take: return .take
        case .resolve: return .resolve
        case .reply: return text.map(TicketAction.reply)
        case .note: return text.map(TicketAction.note)
        case .transfer:
            guard let text else { return nil }
            let parts = text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            guard let queue = parts.first else { return nil }
            return .transfer(queue: String(queue), note: parts.count > 1 ? String(parts[1]) : nil)
        case .tickets, .available, .away: return nil
        }
    }

    /// The ticket as a log field.
    var ticketField: String { ticket.map(String.init) ?? "-" }
}
