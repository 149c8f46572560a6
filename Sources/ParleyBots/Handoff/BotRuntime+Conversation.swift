import Foundation
import ParleyCore

/// A ticket's conversation read back for the agents' console.
extension BotRuntime {
    /// A conversation is read this many messages at a time, at most `conversationPages` of
    /// them (one, unless the client no longer lists it and it is read from its start).
    static let conversationPage = 500
    static let conversationPages = 40

    /// The last `limit` messages of `ticket`'s conversation, oldest first; nil if they cannot
    /// be read now (the connection is down): a reader keeps what it showed rather than show
    /// an empty conversation. Logged at debug level only: a console asks again and again.
    ///
    /// Read through the bot's own connection (`Transport.history`), not from its client: a bot
    /// client keeps message ids only where its history would not outlive the process
    /// (`HistoryPolicy.ids`: memory storage, Matrix), while the connection answers from what
    /// the server or the transport's own record keeps — the embedded hub and Matrix alike.
    func conversation(of ticket: Ticket, limit: Int) async -> [TicketMessage]? {
        guard limit > 0, let channel = Channel(target: ticket.channel) else { return [] }
        let envelopes: [Envelope]
        do { envelopes = try await newest(limit, of: channel) } catch {
            log(.debug, "cannot read a ticket's conversation", ["channel": ticket.channel, "ticket": String(ticket.number), "error": "\(error)"])
            return nil
        }
        return envelopes.map { envelope in
            let text = (try? bot.registry.decode(envelope.payload))?.fallback ?? envelope.payload["fallback"]?.stringValue ?? ""
            guard envelope.sender != client.userID else { return TicketMessage(from: .bot, name: bot.name, text: text, time: envelope.timestamp) }
            let carried = envelope.extensions["sender.name"]?.stringValue
            let name = envelope.sender == ticket.user ? ticket.customer?.name ?? carried : carried
            return TicketMessage(from: .customer, name: name ?? envelope.sender, text: text, time: envelope.timestamp)
        }
    }

    /// The newest `limit` messages of `channel`. The transport reads forward from a seq, so
    /// the read starts `limit` before the last seq the client has seen (from the start for a
    /// conversation it no longer lists) and goes on, page by page, to the end: messages the
    /// server has and the client has not seen yet (the bot's reply just sent) are read too.
    /// A gap in the seqs (a message hidden from the bot) makes it fewer.
    private func newest(_ limit: Int, of channel: Channel) async throws -> [Envelope] {
        var after = max(0, (await client.conversation(channel)?.lastSeq ?? 0) - Int64(limit))
        var kept: [Envelope] = []
        for _ in 0..<Self.conversationPages {
            let page = try await transport.history(of: channel, after: after, limit: Self.conversationPage)
            kept = Array((kept + page).suffix(limit))
            guard let last = page.last, page.count == Self.conversationPage else { break }
            after = last.seq
        }
        return kept
    }
}
