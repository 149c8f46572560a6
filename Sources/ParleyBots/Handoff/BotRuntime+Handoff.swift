import Foundation
import ParleyCore

extension BotRuntime {
    /// Opens a ticket (or takes the conversation's unresolved one: a hand-off run again after a
    /// crash) and posts its card into `group:<queue>`, under `clientMessageID` when given (a
    /// resumed plan's, so a card posted before the crash is not shown twice); returns its number.
    ///
    /// The customer's card is made before the ticket is stored, so the one write keeps it and
    /// the note for the agents' console. A hand-off joining the open ticket posts the new
    /// note; the ticket keeps the one it was opened with.
    func openTicket(queue: String, note: String, channel: Channel, trigger: Message?, clientMessageID: UUID? = nil) async -> Int? {
        let user = trigger?.sender ?? channel.id
        let card = await customerCard(of: user)
        var ticket: Ticket
        do {
            ticket = try await store.open(Ticket(bot: bot.id, channel: channel.target, user: user, queue: queue, openedAt: clock.now(),
                                           customer: card, note: note))
        } catch {
            log(.error, "handoff failed: cannot store the ticket", ["channel": channel.target, "error": "\(error)"])
            return nil
        }
        // A joined ticket shows its own customer (asked for again if stored without a card).
        let shown = ticket.customer ?? (ticket.user == user ? card : nil)
        guard await postCard(of: ticket, card: shown, note: note, clientMessageID: clientMessageID) else {
            // No agent can see the ticket: keep answering rather than go silent for good.
            ticket.status = .resolved
            ticket.resolvedAt = clock.now()
            await update(ticket)
            return nil
        }
        log(.info, "handoff", ["channel": channel.target, "queue": queue, "ticket": String(ticket.number)])
        await arrange(ticket, in: channel)
        return ticket.number
    }

    /// The card of `user` a ticket shows: their profile's, or their id as the name when the
    /// server has none.
    func customerCard(of user: String) async -> VCardContent {
        guard let profile = try? await client.profiles.profile(of: user) else { return VCardContent(user: user, name: user) }
        return VCardContent(profile: profile)
    }

    /// Posts the card of `ticket` into its queue's group: the customer's vCard (`card`; nil:
    /// asked of the server now), `note` and the conversation's last lines. False (logged) if
    /// the server did not take it.
    func postCard(of ticket: Ticket, card: VCardContent?, note: String, clientMessageID: UUID? = nil) async -> Bool {
        let user: VCardContent
        if let card { user = card } else { user = await customerCard(of: ticket.user) }
        let lines = Channel(target: ticket.channel).flatMap { lanes[$0]?.recent.joined } ?? []
        let content = TicketContent(number: Int64(ticket.number), user: user, note: note, recent: lines, prefix: bot.prefix)
        var options = SendOptions.interactive
        options.clientMessageID = clientMessageID
        do {
            _ = try await client.send(content, to: .group(ticket.queue), options: options)
            self.options.activity?.sent(bot: bot.id)
            return true
        } catch {
            sendFailed(error)
            log(.error, "handoff failed: ticket card not posted", ["queue": ticket.queue, "ticket": String(ticket.number), "error": "\(error)"])
            return false
        }
    }

    /// While agents have a conversation, what the user writes goes to the queue's group.
    func relayToAgents(_ message: Message, in channel: Channel, text: String, from user: InboundUser, ticket number: Int) async {
        guard let ticket = try? store.ticket(bot: bot.id, channel: channel.target, number: number) else { return }
        let names = sendNames(for: message, part: "relay")
        await send(.text(Self.relayLines(ticket: number, name: user.name, text: text)), to: .group(ticket.queue), quoting: nil,
                   clientMessageID: names?.clientMessageID(at: 0))
        // Still waiting for an agent: the customer hears where they stand.
        if ticket.status == .open, let place = place(of: ticket) {
            await send(.text("You are number \(place) in the queue; an agent will be with you soon."), to: channel, quoting: nil,
                       clientMessageID: names?.clientMessageID(at: 1))
        }
    }

    /// `#N Name: text`, every line of the text under that head: agents act on the number a
    /// line starts with, so neither the name (escaped to one line) nor a line break in the text
    /// can make a line that seems to come from another ticket.
    static func relayLines(ticket number: Int, name: String, text: String) -> String {
        let head = "#\(number) \(VisibleText.line(name)):"
        return VisibleText.lines(text).map { "\(head) \($0)" }.joined(separator: "\n")
    }

    /// The agents' commands (after the prefix; `AgentCommand`), acted on only in a queue's
    /// own channel and only for a member of it. Elsewhere, or from anyone else, one naming a
    /// ticket is refused with a log line and no answer at all: an answer would let a stranger
    /// probe which tickets exist. Returns false for anything else, which is then routed as usual.
    func agentCommand(_ text: String, from message: Message) async -> Bool {
        guard let command = AgentCommand(text, prefix: bot.prefix) else { return false }
        let group = message.channel
        guard group.kind == .group, bot.queues.contains(group.id) else {
            // Outside the queues a bot's own command of that name is meant for its users, and
            // a line naming no ticket is just a line (a paused customer's goes to the agents).
            guard command.ticket != nil, bot.commands[command.verb.rawValue] == nil else { return false }
            refuse(command, from: message, reason: "not a queue's channel")
            return true
        }
        guard await mayAct(command, from: message) else { return true }
        // Each outcome sends one message, under one name: a command handled again after a
        // restart (the ticket already changed) is not answered twice.
        let name = sendNames(for: message, part: "agent")?.clientMessageID(at: 0)
        func answer(_ text: String) async { await send(.text(text), to: group, quoting: message, clientMessageID: name) }
        let agent = await userInfo(message)
        switch command.verb {
        case .tickets:
            await answer(ticketList(queue: group.id))
            return true
        case .available, .away:
            await answer(await setAway(agent, command.verb == .away))
            return true
        default:
            break
        }
        guard let number = command.ticket else {
            await answer(usage(command.verb))
            return true
        }
        let numbered = try? store.tickets(queue: group.id, number: number)
        if let numbered, !numbered.isEmpty, !numbered.contains(where: { $0.bot == bot.id }) {
            // Numbers are per queue: another bot's ticket is that bot's to answer, so this one
            // stays silent rather than say there is no such ticket.
            return true
        }
        guard let action = command.action else {
            await answer(usage(command.verb))
            return true
        }
        do throws(TicketError) {
            _ = try await act(action, queue: group.id, number: number, agent: agent, clientMessageID: name, numbered: numbered)
        } catch where error.code == .takenByAnother || error.code == .unknownQueue {
            await answer(error.message)
        } catch where error.code == .unknownTicket || error.code == .resolved {
            await answer("No open ticket #\(number).")
        } catch {
            // Logged where it happened (a send, the store): the agent sees no confirmation.
        }
        return true
    }

    /// The one path of `take`, `reply` and `resolve`, for the agents' chat commands and the
    /// admin API (`BotHost.ticketAction`): finds this bot's ticket `number` of `queue`,
    /// changes it and tells the queue (take, resolve) or the customer, as the bot (reply),
    /// with that one message under `clientMessageID` when given. Who may act is the caller's
    /// to check. `numbered` are the queue's tickets numbered `number` when the caller has just
    /// read them, with no suspension since (an agent's command): not read and decoded twice.
    /// Returns the ticket as it stands after.
    func act(_ action: TicketAction, queue: String, number: Int, agent: InboundUser,
             clientMessageID: UUID?, numbered read: [Ticket]? = nil) async throws(TicketError) -> Ticket {
        let numbered: [Ticket]
        do { numbered = try read ?? store.tickets(queue: queue, number: number) } catch {
            log(.error, "cannot read ticket", ["ticket": String(number), "error": "\(error)"])
            throw TicketError(.storage, "cannot read ticket #\(number) of '\(queue)': \(error)")
        }
        let own = numbered.filter { $0.bot == bot.id }
        guard var ticket = own.first(where: { $0.status != .resolved }) ?? own.first, let channel = Channel(target: ticket.channel) else {
            throw TicketError(.unknownTicket, "queue '\(queue)' has no ticket #\(number)")
        }
        guard ticket.status != .resolved else { throw TicketError(.resolved, "ticket #\(number) of '\(queue)' is resolved") }
        let group = Channel.group(queue)
        switch action {
        case .take:
            if ticket.status == .taken, let holder = ticket.agent, holder != agent.id {
                throw TicketError(.takenByAnother, "Ticket #\(number) is taken by \(VisibleText.line(holder)) already.")
            }
            ticket.status = .taken
            ticket.agent = agent.id
            ticket.takenAt = ticket.takenAt ?? clock.now()
            try await save(ticket)
            await send(.text("Ticket #\(number) taken by \(VisibleText.line(agent.name))."), to: group, quoting: nil,
                       clientMessageID: clientMessageID)
        case .reply(let text):
            // Relayed as the bot: the user talks to one party.
            guard await send(.text(text), to: channel, quoting: nil, clientMessageID: clientMessageID) != nil else {
                throw TicketError(.sendFailed, "the reply to ticket #\(number) was not sent (the log says why)")
            }
            remember(agent.name, text, in: channel)
            if ticket.firstAnswerAt == nil {
                ticket.firstAnswerAt = clock.now()
                try await save(ticket)
                if let opened = ticket.openedAt {
                    options.activity?.ticketAnswered(queue: queue, after: .seconds(clock.now().timeIntervalSince(opened)))
                }
            }
        case .transfer(let target, let note):
            guard bot.queues.contains(target), target != queue else {
                let others = bot.queues.subtracting([queue]).sorted()
                throw TicketError(.unknownQueue, "No queue '\(VisibleText.line(target))' to transfer to"
                                  + (others.isEmpty ? "." : " (queues: \(others.joined(separator: ", "))).") )
            }
            let heading = "Transferred from \(queue) #\(number) by \(VisibleText.line(agent.name))"
            let moved = try await move(ticket, to: target, note: note.map { heading + ": " + $0 } ?? heading + ".", channel: channel)
            await send(.text("Ticket #\(number) transferred to \(target) as #\(moved.number)."), to: group, quoting: nil,
                       clientMessageID: clientMessageID)
            ticket = moved
        case .note(let text):
            ticket.notes = (ticket.notes ?? []) + [Ticket.Note(agent: agent.id, text: text, at: clock.now())]
            try await save(ticket)
            await send(.text("Note added to ticket #\(number)."), to: group, quoting: nil, clientMessageID: clientMessageID)
        case .resolve:
            ticket.status = .resolved
            ticket.resolvedAt = clock.now()
            try await storeResolved(ticket, in: channel)
            if let opened = ticket.openedAt {
                options.activity?.ticketResolved(queue: queue, after: .seconds(clock.now().timeIntervalSince(opened)))
            }
            await send(.text("Ticket #\(number) resolved by \(VisibleText.line(agent.name))."), to: group, quoting: nil,
                       clientMessageID: clientMessageID)
        }
        log(.info, "agent \(action.verb)", ["ticket": String(number), "agent": agent.id])
        return ticket
    }

    /// Stores `ticket` resolved and gives its conversation back to the bot. A conversation
    /// with nothing queued or under way is freed in the ticket's own write (nothing can come
    /// between, on this actor): one commit, not two, and no crash between them leaves it
    /// paused on a resolved ticket. Otherwise `.resolved` frees it in its turn.
    private func storeResolved(_ ticket: Ticket, in channel: Channel) async throws(TicketError) {
        guard lanes[channel]?.isEvictable ?? true, case var state = loadState(channel), state.ticket == ticket.number else {
            try await save(ticket)
            accept(.resolved(ticket: ticket.number), in: channel)
            return
        }
        let paused = state
        state.ticket = nil
        // Cached before the write suspends (it is queued first): a message of the conversation
        // arriving meanwhile finds it freed, and its own state write queues after this one.
        _ = lanes[channel, default: Lane()].cache(state)
        do { try await store.update(ticket, state: state == ConversationState() ? nil : state) } catch {
            log(.error, "cannot update ticket", ["ticket": String(ticket.number), "error": "\(error)"])
            if lanes[channel]?.state == state { _ = lanes[channel]?.cache(paused) }
            throw TicketError(.storage, "cannot update ticket #\(ticket.number): \(error)")
        }
        log(.info, "conversation back to the bot", ["channel": channel.target, "ticket": String(ticket.number)])
        if bot.handoff.onResolve != nil { accept(.resolved(ticket: ticket.number, freed: true), in: channel) }
    }

    func save(_ ticket: Ticket) async throws(TicketError) {
        do { try await store.update(ticket) } catch {
            log(.error, "cannot update ticket", ["ticket": String(ticket.number), "error": "\(error)"])
            throw TicketError(.storage, "cannot update ticket #\(ticket.number): \(error)")
        }
    }

    /// Whether the sender is a member of the queue's channel now, asked of the server each
    /// time (agent commands are rare): someone removed from the group loses its tickets at
    /// once, even for a command sent before. Unknown counts as no.
    private func mayAct(_ command: AgentCommand, from message: Message) async -> Bool {
        do {
            if try await transport.members(of: message.channel).contains(message.sender) { return true }
            refuse(command, from: message, reason: "not a member of the queue's channel")
        } catch {
            refuse(command, from: message, reason: "membership unknown", error: error)
        }
        return false
    }

    private func refuse(_ command: AgentCommand, from message: Message, reason: String, error: (any Error)? = nil) {
        var fields = ["command": command.verb.rawValue, "ticket": command.ticketField, "user": message.sender,
                      "channel": message.channel.target, "reason": reason]
        if let error { fields["error"] = "\(error)" }
        log(.warn, "agent command refused", fields)
    }

    private func usage(_ verb: AgentCommand.Verb) -> String {
        let rest = switch verb {
        case .reply, .note: " <ticket> <text>"
        case .transfer: " <ticket> <queue> [note]"
        case .tickets, .available, .away: ""
        default: " <ticket>"
        }
        return "Usage: \(bot.prefix)\(verb.rawValue)\(rest)"
    }

    /// `save`, its failure logged only.
    func update(_ ticket: Ticket) async { try? await save(ticket) }
}
