/// Ticket actions from outside the chat (the admin API), through the path of the agents'
/// chat commands.
extension BotHost {
    /// Takes, answers or resolves ticket `number` of `queue` as `agent` (a user id, named by
    /// its profile) exactly as that agent's `take`, `reply` or `resolve` in the queue's
    /// channel does: the queue is told, a reply reaches the customer as the bot, a resolved
    /// conversation goes back to the bot. The caller has checked who may act. Returns the
    /// ticket as it stands after; `waitUntilIdle` covers what the action started.
    public func ticketAction(_ action: TicketAction, queue: String, number: Int, agent: String) async throws(TicketError) -> Ticket {
        var handling: [BotRuntime] = []
        for runtime in startedRuntimes() where await runtime.bot.queues.contains(queue) { handling.append(runtime) }
        guard !handling.isEmpty else { throw TicketError(.unknownQueue, "no running bot hands off to queue '\(queue)'") }
        let numbered: [Ticket]
        do { numbered = try store.tickets(queue: queue, number: number) } catch {
            throw TicketError(.storage, "cannot read ticket #\(number) of '\(queue)': \(error)")
        }
        // Numbers are per queue; tickets stored before that may share one (the open one wins).
        let ticket = numbered.first { $0.status != .resolved } ?? numbered.first
        guard let ticket, let runtime = handling.first(where: { $0.id == ticket.bot }) else {
            throw TicketError(.unknownTicket, "queue '\(queue)' has no ticket #\(number)")
        }
        tracker.begin()
        defer { tracker.end() }
        return try await runtime.act(action, queue: queue, number: number, agent: await runtime.user(agent), clientMessageID: nil)
    }
}
