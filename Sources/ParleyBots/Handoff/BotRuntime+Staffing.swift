import Foundation
import ParleyCore

/// `handoff.queues`: who gets a new ticket, what happens to one nobody takes, and what agents
/// and waiting customers are told. Each step checks the ticket as stored, so running it again
/// (a timer armed twice, a plan run again after a crash) changes nothing twice.
extension BotRuntime {
    /// What a new (or moved) ticket gets: an agent if its queue assigns, and its timers.
    func arrange(_ ticket: Ticket, in channel: Channel) async {
        // Out of hours nobody is assigned: the ticket's `.assign` timer does it at the opening.
        let ticket = bot.handoff.queue(ticket.queue).hours?.isOpen(at: clock.now()) == false ? ticket : await assign(ticket)
        armTimers(of: ticket, in: channel)
    }

    /// Gives `ticket`, if still open, to the next available agent by its queue's `assign`
    /// rule, and tells the queue; returns it as it stands after.
    private func assign(_ ticket: Ticket) async -> Ticket {
        var ticket = ticket
        let rules = bot.handoff.queue(ticket.queue)
        if ticket.status == .open, rules.assignment != .manual {
            let everyone: [String]
            if let agents = rules.agents {
                everyone = agents
            } else {
                let members = (try? await transport.members(of: .group(ticket.queue))) ?? []
                everyone = members.filter { $0 != client.userID && !peers.contains($0) }.sorted()
            }
            // From reading the turn to queuing the assignment nothing suspends, and the store
            // shows a queued turn before it commits: conversations handled at the same time on
            // this actor each get the next agent, not the same.
            if let agent = nextAgent(for: ticket.queue, among: everyone, rules.assignment) {
                ticket.status = .taken
                ticket.agent = agent
                ticket.takenAt = clock.now()
                // The ticket and the queue's turn in one write.
                do { try await store.assign(ticket) } catch {
                    log(.error, "cannot update ticket", ["ticket": String(ticket.number), "error": "\(error)"])
                }
                log(.info, "ticket assigned", ["queue": ticket.queue, "ticket": String(ticket.number), "agent": agent])
                let name = await user(agent).name
                await send(.text("Ticket #\(ticket.number) assigned to \(VisibleText.line(name))."), to: .group(ticket.queue), quoting: nil)
            }
        }
        return ticket
    }

    /// The available agent among `everyone` (in turn order) who gets the next ticket of
    /// `queue` by `assignment`; nil when nobody is available. Synchronous on purpose (see
    /// `assign`).
    private func nextAgent(for queue: String, among everyone: [String], _ assignment: QueuePolicy.Assignment) -> String? {
        let away = (try? store.awayAgents()) ?? []
        let available = everyone.filter { !away.contains($0) }
        guard !available.isEmpty else {
            log(.warn, "ticket not assigned: no agent available", ["queue": queue])
            return nil
        }
        let chosen: String
        switch assignment {
        case .roundRobin:
            // The one after the last assigned in the full order, skipping who is away now.
            let last = ((try? store.lastAssigned(queue: queue)) ?? nil).flatMap { everyone.firstIndex(of: $0) }
            let start = last.map { $0 + 1 } ?? 0
            chosen = (0..<everyone.count).lazy.map { everyone[(start + $0) % everyone.count] }.first { !away.contains($0) } ?? available[0]
        case .leastBusy:
            let load = (try? store.takenCounts(queue: queue)) ?? [:]
            chosen = available.min { load[$0, default: 0] < load[$1, default: 0] } ?? available[0]
        case .manual:
            return nil
        }
        return chosen
    }

    /// Arms the queue's `remind_after` and `escalate_after` for `ticket` (from when it was
    /// opened: after a restart, what is past due fires at once).
    func armTimers(of ticket: Ticket, in channel: Channel) {
        guard ticket.status == .open else { return }
        let rules = bot.handoff.queue(ticket.queue)
        var opened = ticket.openedAt ?? clock.now()
        var timers: [(TicketTimer, Duration)] = []
        // Opened out of hours: the clock starts when the queue opens, with an assignment.
        if let hours = rules.hours, !hours.isOpen(at: opened), let opening = hours.nextOpening(after: opened) {
            opened = opening
            if rules.assignment != .manual { timers.append((.assign, .zero)) }
        }
        // Armed again after a restart even when done: the handler decides, from the ticket.
        if let remind = rules.remindAfter { timers.append((.remind, remind)) }
        if let escalate = rules.escalateAfter, rules.escalateTo != nil { timers.append((.escalate, escalate)) }
        for (kind, after) in timers {
            let item = WorkItem.ticketDue(queue: ticket.queue, number: ticket.number, kind)
            timer.schedule(at: opened.addingTimeInterval(after.timeInterval)) { [weak self] in self?.acceptFromTimer(item, in: channel) }
        }
    }

    /// At start: the timers of this bot's tickets still waiting for an agent.
    func armOpenTickets() {
        let open = (try? store.listTickets(queue: nil, statuses: [.open], limit: 1_000_000)) ?? []
        for ticket in open where ticket.bot == bot.id {
            guard let channel = Channel(target: ticket.channel) else { continue }
            armTimers(of: ticket, in: channel)
        }
    }

    /// A ticket's timer is due: if it still waits untaken, it is announced again, or moved on.
    func ticketDue(queue: String, number: Int, _ kind: TicketTimer, in channel: Channel) async {
        guard let ticket = ((try? store.tickets(queue: queue, number: number)) ?? []).first(where: { $0.bot == bot.id }),
              ticket.status == .open else { return }
        let rules = bot.handoff.queue(queue)
        let waited = DurationFormat.format(.seconds(clock.now().timeIntervalSince(ticket.openedAt ?? clock.now()).rounded()))
        switch kind {
        case .assign:
            _ = await assign(ticket)
        case .remind:
            guard ticket.remindedAt == nil else { return }
            var reminded = ticket
            reminded.remindedAt = clock.now()
            await update(reminded)
            log(.info, "ticket reminder", ["queue": queue, "ticket": String(number)])
            await send(.text("Reminder: ticket #\(number) from \(VisibleText.line(ticket.user)) has waited \(waited) for an agent."),
                       to: .group(queue), quoting: nil)
        case .escalate:
            guard let target = rules.escalateTo else { return }
            do throws(TicketError) {
                let moved = try await move(ticket, to: target, note: "Escalated from \(queue) #\(number): untaken for \(waited).", channel: channel)
                log(.info, "ticket escalated", ["queue": queue, "ticket": String(number), "to": "\(target)#\(moved.number)"])
                await send(.text("Ticket #\(number) escalated to \(target) as #\(moved.number) after \(waited) untaken."),
                           to: .group(queue), quoting: nil)
            } catch {
                log(.error, "ticket not escalated", ["queue": queue, "ticket": String(number), "error": error.message])
            }
        }
    }

    /// Moves `ticket` to `queue` (closed here, opened there with a new number, in one write),
    /// posts its card there with `note`, and arranges it as a new ticket of that queue.
    func move(_ ticket: Ticket, to queue: String, note: String, channel: Channel) async throws(TicketError) -> Ticket {
        let moved: Ticket
        do { moved = try await store.transfer(ticket, to: queue, note: note, at: clock.now()) } catch {
            log(.error, "cannot move ticket", ["ticket": String(ticket.number), "error": "\(error)"])
            throw TicketError(.storage, "cannot move ticket #\(ticket.number) of '\(ticket.queue)': \(error)")
        }
        accept(.moved(from: ticket.number, to: moved.number), in: channel)
        // A ticket stored before cards were kept has none: the card is asked for as before.
        _ = await postCard(of: moved, card: moved.customer, note: note)
        await arrange(moved, in: channel)
        return moved
    }

    /// The customer's place among the tickets of its queue nobody has taken yet (1: next).
    func place(of ticket: Ticket) -> Int? {
        (try? store.waitingAhead(of: ticket.number, queue: ticket.queue)).map { $0 + 1 }
    }

    /// `tickets`: the queue's unresolved tickets, oldest first, with their age and agent.
    func ticketList(queue: String) -> String {
        let tickets = ((try? store.listTickets(queue: queue, statuses: [.open, .taken], limit: 1_000)) ?? []).sorted { $0.number < $1.number }
        guard !tickets.isEmpty else { return "No open tickets in \(queue)." }
        let now = clock.now()
        let lines = tickets.map { ticket in
            let age = ticket.openedAt.map { DurationFormat.format(.seconds(now.timeIntervalSince($0).rounded())) } ?? "?"
            let holder = ticket.agent.map { "taken by " + VisibleText.line($0) } ?? "waiting"
            return "#\(ticket.number) \(VisibleText.line(ticket.user)), \(age), \(holder)"
        }
        return "Open tickets in \(queue) (\(tickets.count)):\n" + lines.joined(separator: "\n")
    }

    /// `available` / `away`: the agent's status for automatic assignment, kept in the store.
    func setAway(_ agent: InboundUser, _ away: Bool) async -> String {
        do { try await store.setAway(agent.id, away) } catch {
            log(.error, "cannot store the agent's status", ["agent": agent.id, "error": "\(error)"])
            return "Your status could not be saved; try again."
        }
        log(.info, away ? "agent away" : "agent available", ["agent": agent.id])
        return away ? "\(VisibleText.line(agent.name)) is away: no tickets are assigned to them."
                    : "\(VisibleText.line(agent.name)) is available for tickets."
    }

    /// A hand-off into `queue` while it is closed: its `closed` actions for the customer, with
    /// `{{queue.opens}}`. Messages only: what they would change in the conversation is dropped
    /// (the hand-off's own plan owns the state).
    func answerOutOfHours(queue: String, in channel: Channel, trigger: Message?) async {
        let rules = bot.handoff.queue(queue)
        let now = clock.now()
        guard let hours = rules.hours, !rules.closed.isEmpty, !hours.isOpen(at: now) else { return }
        var planner = Planner(bot: bot, state: loadState(channel), now: now)
        planner.context.queueOpens = hours.opensText(after: now)
        if let trigger { planner.context.user = await userInfo(trigger) }
        planner.run(rules.closed, flow: nil)
        var state = planner.state
        var names: SendNames?
        if let trigger, lanes[channel]?.isHandling(trigger.id) == true { names = sendNames(for: trigger, part: "closed") }
        log(.info, "handoff out of hours", ["queue": queue, "opens": planner.context.queueOpens ?? ""])
        await execute(planner.effects, in: channel, trigger: trigger, state: &state, names: names)
    }
}
