import Foundation
import ParleyCore

extension BotRuntime {
    /// Handles one item of a conversation's queue. Failures are logged; the queue goes on.
    func process(_ item: WorkItem, in channel: Channel) async {
        switch item {
        case .message(let message):
            lanes[channel]?.beginHandling(message.id)
            await handle(message, in: channel)
            finishHandling(message.id, in: channel)
        case .reaction(let reaction):
            lanes[channel]?.beginHandling(reaction.id)
            await handle(reaction, in: channel)
            finishHandling(reaction.id, in: channel)
        case .joined:
            guard !bot.greeting.isEmpty, await firstTime("group:\(channel.id)", answering: nil) else { return }
            log(.info, "joined group", ["channel": channel.target])
            await run(.greeting(nil), in: channel, trigger: nil)
        case .timeout(let position, let deadline):
            await run(.timeout(position, deadline), in: channel, trigger: nil)
        case .resume(let id):
            await resumeDelayed(id, in: channel)
        case .resolved(let number, let freed):
            if !freed {
                var state = loadState(channel)
                guard state.ticket == number else { return }
                state.ticket = nil
                saveState(state, channel)
                log(.info, "conversation back to the bot", ["channel": channel.target, "ticket": String(number)])
            }
            // `handoff.on_resolve`: the customer starts there (a survey).
            if let step = bot.handoff.onResolve { await run(.enter(step), in: channel, trigger: nil) }
        case .moved(let from, let to):
            var state = loadState(channel)
            guard state.ticket == from else { return }
            state.ticket = to
            saveState(state, channel)
        case .ticketDue(let queue, let number, let kind):
            await ticketDue(queue: queue, number: number, kind, in: channel)
        }
    }

    private func handle(_ message: Message, in channel: Channel) async {
        guard let text = (message.content as? TextContent)?.text else {
            log(.debug, "ignored: not text", ["channel": channel.target, "user": message.sender, "type": String(message.content.typeCode)])
            return
        }
        // The size limit holds for agents too: an agent's `reply` is relayed to the customer.
        let size = text.utf8.count
        guard size <= options.maxMessageBytes else {
            log(.warn, "message refused: too large", ["channel": channel.target, "user": message.sender,
                                                      "bytes": String(size), "limit": String(options.maxMessageBytes)])
            return
        }
        // Agents are authorised by their queue's channel (BotRuntime+Handoff), not by `allow:`,
        // which says whom the bot serves.
        if await agentCommand(text, from: message) { return }
        guard bot.allows(user: message.sender, channel: channel) else {
            log(.debug, "ignored: not allowed", ["channel": channel.target, "user": message.sender])
            return
        }
        let user = await userInfo(message)
        remember(user.name, text, in: channel)
        let state = loadState(channel)
        if let ticket = state.ticket {
            // STOP always works, also while agents have the conversation: the opt-out is kept
            // and confirmed (the router puts it first), and the agents still see the line.
            if !bot.unsubscribing(text).isEmpty { await run(.message(text: text, from: user), in: channel, trigger: message) }
            await relayToAgents(message, in: channel, text: text, from: user, ticket: ticket)
            return
        }
        if !bot.greeting.isEmpty, await firstTime("user:\(message.sender)", answering: message.id) {
            await run(.greeting(user), in: channel, trigger: message)
        }
        await run(.message(text: text, from: user), in: channel, trigger: message)
    }

    /// A user's reaction to one of the bot's messages: an `ask` that lists the emoji, else a
    /// `reaction` trigger, else nothing. Not in a hand-off queue's group (agents react to
    /// ticket cards for each other), nor while agents have the conversation (there is no
    /// message to relay), nor from a user `allow:` does not admit.
    private func handle(_ reaction: InboundReaction, in channel: Channel) async {
        let ignored: String? = if channel.kind == .group && bot.queues.contains(channel.id) {
            "ignored: a reaction in a hand-off queue"
        } else if !bot.allows(user: reaction.user, channel: channel) {
            "ignored: not allowed"
        } else if loadState(channel).isPaused {
            "ignored: a reaction while agents have the conversation"
        } else {
            nil
        }
        if let ignored {
            log(.debug, ignored, ["channel": channel.target, "user": reaction.user])
            return
        }
        let user = await user(reaction.user)
        await run(.reaction(emoji: reaction.emoji, from: user), in: channel, trigger: nil, received: reaction.id)
    }

    /// Plans `input` against the conversation's state, executes the plan, saves the state.
    /// `received` is the id of the message or reaction the plan answers (`trigger`'s, for a
    /// message), which names its sends while the item is being handled.
    func run(_ input: RouterInput, in channel: Channel, trigger: Message?, received: String? = nil) async {
        var plan = Router.decide(bot: bot, state: loadState(channel), input: input, now: clock.now())
        if plan.route == Router.unansweredReaction {
            log(.debug, "ignored: no ask or trigger takes the reaction", ["channel": channel.target])
            return
        }
        let user = if let trigger { trigger.sender } else if case .reaction(_, let from) = input { from.id } else { "-" }
        log(.info, "handled", ["channel": channel.target, "route": plan.route, "user": user])
        // For a received message the state is written once it is handled (`finishHandling`);
        // a restart before that runs the plan again under the same send names. Otherwise (a
        // timeout) the new state is saved before effects run, so a restart during a long plan
        // (or a `wait`) resumes in the flow the plan entered.
        saveState(plan.state, channel)
        var names: SendNames?
        if let received = received ?? trigger?.id, lanes[channel]?.isHandling(received) == true {
            let part = if case .greeting = input { "greeting" } else { "plan" }
            names = sendNames(forReceived: received, part: part)
        }
        let answering: Message? = if case .message = input { trigger } else { nil }
        await execute(plan.effects, in: channel, trigger: trigger, state: &plan.state, names: names, answering: answering)
        saveState(plan.state, channel)
    }

    /// True the first time `key` is seen (remembered in the store across restarts), and again
    /// for the message `answering` that it was first seen with, when a restart handles it
    /// again. The store hears of each user at most once a day (the cache is emptied daily),
    /// which keeps the greetings of users still around from being pruned by `storage.retention`.
    func firstTime(_ key: String, answering message: String?) async -> Bool {
        let now = clock.now()
        if now.timeIntervalSince(greetedSince) >= 86_400 {
            greeted.removeAll()
            greetedSince = now
        }
        guard greeted.insert(key) else { return false }
        do {
            return try await store.markGreeted(bot: bot.id, key: key, at: now, message: message)
        } catch {
            log(.error, "cannot record greeting", ["key": key, "error": "\(error)"])
            return false
        }
    }

    /// The sender's id and display name: the name the message carried, the cached profile,
    /// or a fetched one; the id when nothing is known.
    func userInfo(_ message: Message) async -> InboundUser {
        if let name = message.senderName { return InboundUser(id: message.sender, name: name) }
        return await user(message.sender)
    }

    /// User `id` with the cached or a fetched profile's display name; the id when nothing is known.
    func user(_ id: String) async -> InboundUser {
        if let cached = client.profiles.cachedProfileNow(of: id), cached.name != nil {
            return InboundUser(id: id, name: cached.displayName)
        }
        let profile = try? await client.profiles.profile(of: id)
        return InboundUser(id: id, name: profile?.displayName ?? id)
    }
}
