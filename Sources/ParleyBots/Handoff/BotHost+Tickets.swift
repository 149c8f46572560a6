/// Ticket actions from outside the chat (the admin API, the agents' console), through the path
/// of the agents' chat commands.
extension BotHost {
    /// Ticket `number` of `queue` as an action on it would find it: numbers are per queue, but
    /// tickets stored before that may share one, and then the unresolved one wins. Nil when
    /// the queue has no such ticket.
    public func ticket(queue: String, number: Int) throws(TicketError) -> Ticket? {
        let numbered: [Ticket]
        do { numbered = try store.tickets(queue: queue, number: number) } catch {
            throw TicketError(.storage, "cannot read ticket #\(number) of '\(queue)': \(error)")
        }
        return numbered.first { $0.status != .resolved } ?? numbered.first
    }

    /// The last `limit` messages of `ticket`'s conversation (the customer's with the bot),
    /// oldest first, as the bot that opened it sees them (`BotRuntime.conversation`); empty
    /// when that bot is not running, nil when they cannot be read now.
    public func conversation(of ticket: Ticket, limit: Int) async -> [TicketMessage]? {
        guard let runtime = startedRuntimes().first(where: { $0.id == ticket.bot }) else { return [] }
        return await runtime.conversation(of: ticket, limit: limit)
    }

    /// Takes, answers or resolves ticket `number` of `queue` as `agent` (a user id, named by
    /// its profile) exactly as that agent's `take`, `reply` or `resolve` in the queue's
    /// channel does: the queue is told, a reply reaches the customer as the bot, a resolved
    /// conversation goes back to the bot. The caller has checked who may act. Returns the
    /// ticket as it stands after; `waitUntilIdle` covers what the action started.
    public func ticketAction(_ action: TicketAction, queue: String, number: Int, agent: String) async throws(TicketError) -> Ticket {
        var handling: [BotRuntime] = []
        for runtime in startedRuntimes() where await runtime.bot.queues.contains(queue) { handling.append(runtime) }
        guard !handling.isEmpty else { throw TicketError(.unknownQueue, "no running bot hands off to queue '\(queue)'") }
        guard let ticket = try ticket(queue: queue, number: number), let runtime = handling.first(where: { $0.id == ticket.bot }) else {
            throw TicketError(.unknownTicket, "queue '\(queue)' has no ticket #\(number)")
        }
        tracker.begin()
        defer { tracker.end() }
        return try await runtime.act(action, queue: queue, number: number, agent: await runtime.user(agent), clientMessageID: nil)
    }
}
