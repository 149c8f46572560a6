import Foundation
import ParleyCore

extension BotRuntime {
    /// Opens a ticket (or takes the conversation's unresolved one: a hand-off run again after a
    /// crash) and posts its card into `group:<queue>`, under `clientMessageID` when given (a
    /// resumed plan's, so a card posted before the crash is not shown twice); returns its number.
    func openTicket(queue: String, note: String, channel: Channel, trigger: Message?, clientMessageID: UUID? = nil) async -> Int? {
        let user = trigger?.sender ?? channel.id
        let ticket: Ticket
        do {
            ticket = try store.open(Ticket(bot: bot.id, channel: channel.target, user: user, queue: queue))
        } catch {
            log(.error, "handoff failed: cannot store the ticket", ["channel": channel.target, "error": "\(error)"])
            return nil
        }
        var card = VCardContent(user: user, name: user)
        if let profile = try? await client.profiles.profile(of: user) { card = VCardContent(profile: profile) }
        let content = TicketContent(number: Int64(ticket.number), user: card, note: note,
                                    recent: lanes[channel]?.recent.joined ?? [], prefix: bot.prefix)
        var options = SendOptions.interactive
        options.clientMessageID = clientMessageID
        do {
            _ = try await client.send(content, to: .group(queue), options: options)
        } catch {
            // No agent can see the ticket: keep answering rather than go silent for good.
            log(.error, "handoff failed: ticket card not posted", ["queue": queue, "ticket": String(ticket.number), "error": "\(error)"])
            var closed = ticket
            closed.status = .resolved
            update(closed)
            return nil
        }
        log(.info, "handoff", ["channel": channel.target, "queue": queue, "ticket": String(ticket.number)])
        return ticket.number
    }

    /// While agents have a conversation, what the user writes goes to the queue's group.
    func relayToAgents(_ text: String, from user: InboundUser, ticket number: Int, channel: Channel) async {
        guard let ticket = try? store.ticket(bot: bot.id, number: number) else { return }
        await send(.text("#\(number) \(user.name): \(text)"), to: .group(ticket.queue), quoting: nil)
    }

    /// `take N`, `reply N text`, `resolve N` (after the prefix) from an agent in a queue
    /// group. Returns false for anything else, which is then routed as usual.
    func agentCommand(_ text: String, from message: Message) async -> Bool {
        guard text.hasPrefix(bot.prefix) else { return false }
        let words = text.dropFirst(bot.prefix.count).split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard let verb = words.first, ["take", "reply", "resolve"].contains(verb) else { return false }
        let group = message.channel
        guard words.count >= 2, let number = Int(words[1]) else {
            await send(.text("Usage: \(bot.prefix)\(verb) <ticket>" + (verb == "reply" ? " <text>" : "")), to: group, quoting: message)
            return true
        }
        guard var ticket = try? store.ticket(bot: bot.id, number: number), ticket.queue == group.id,
              ticket.status != .resolved, let channel = Channel(target: ticket.channel) else {
            await send(.text("No open ticket #\(number)."), to: group, quoting: message)
            return true
        }
        let agent = await userInfo(message)
        switch verb {
        case "take":
            ticket.status = .taken
            ticket.agent = message.sender
            update(ticket)
            await send(.text("Ticket #\(number) taken by \(agent.name)."), to: group, quoting: nil)
        case "reply":
            guard words.count == 3 else {
                await send(.text("Usage: \(bot.prefix)reply <ticket> <text>"), to: group, quoting: message)
                return true
            }
            // Relayed as the bot: the user talks to one party.
            await send(.text(String(words[2])), to: channel, quoting: nil)
            remember(agent.name, String(words[2]), in: channel)
        default:
            ticket.status = .resolved
            update(ticket)
            accept(.resolved(ticket: number), in: channel)
            await send(.text("Ticket #\(number) resolved by \(agent.name)."), to: group, quoting: nil)
        }
        log(.info, "agent \(verb)", ["ticket": String(number), "agent": message.sender])
        return true
    }

    private func update(_ ticket: Ticket) {
        do { try store.update(ticket) } catch {
            log(.error, "cannot update ticket", ["ticket": String(ticket.number), "error": "\(error)"])
        }
    }
}
