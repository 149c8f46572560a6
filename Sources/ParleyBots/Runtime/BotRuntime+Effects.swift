import Foundation
import ParleyCore

extension BotRuntime {
    /// Runs effects in order through the client. A failed send is logged and the plan goes
    /// on; a `wait` stores the rest of the plan in `state` and arms its timer. `resuming` is
    /// the delayed plan these effects are the rest of (its progress is saved effect by effect);
    /// `names`, when the plan answers a received message, name its sends; `answering` is that
    /// message when the plan is its answer (its first send accepted is the answer's latency).
    func execute(_ effects: [Effect], in channel: Channel, trigger: Message?, state: inout ConversationState,
                 resuming: DelayedPlan? = nil, names: SendNames? = nil, answering: Message? = nil) async {
        var answering = answering
        // Effects are named by their index in the whole plan (durable broadcast jobs, sends of
        // a resumed plan): the same names after a restart, never two alike in one plan.
        let offset = resuming?.offset ?? 0
        for (index, effect) in effects.enumerated() {
            if let resuming { saveProgress(of: resuming.id, remaining: effects[index...], offset: offset + index, state: &state, channel) }
            switch effect {
            case .send(let content, let to, let quote):
                var target = channel
                if let to {
                    guard let parsed = Channel(target: to), parsed.kind != .local else {
                        log(.warn, "send skipped: invalid target", ["target": to, "channel": channel.target])
                        continue
                    }
                    target = parsed
                }
                let sent = await send(content, to: target, quoting: quote && target == channel ? trigger : nil,
                                      clientMessageID: resuming?.clientMessageID(at: offset + index) ?? names?.clientMessageID(at: index))
                if let sent, target == channel { remember(bot.name, sent.fallback, in: channel) }
                if sent != nil, let answered = answering {
                    answering = nil
                    let latency = max(0, clock.now().timeIntervalSince(answered.timestamp))
                    options.activity?.answered(bot: bot.id, latency: .milliseconds(Int64(latency * 1000)))
                }
            case .react(let emoji), .unreact(let emoji):
                guard let trigger else { continue }
                let adding = if case .react = effect { true } else { false }
                do {
                    if adding { try await client.react(emoji, to: trigger) } else { try await client.unreact(emoji, from: trigger) }
                } catch {
                    log(.error, adding ? "react failed" : "unreact failed", ["channel": channel.target, "error": "\(error)"])
                }
            case .handoff(let queue, let note):
                if let number = await openTicket(queue: queue, note: note, channel: channel, trigger: trigger,
                                                 clientMessageID: resuming?.clientMessageID(at: offset + index) ?? names?.clientMessageID(at: index)) {
                    state.ticket = number
                    await answerOutOfHours(queue: queue, in: channel, trigger: trigger)
                }
            case .wait(let duration):
                delay(effects[(index + 1)...], offset: offset + index + 1, by: duration, replacing: resuming?.id,
                      trigger: trigger, state: &state, channel)
                return
            case .armTimeout(let position, let deadline):
                armTimeout(position, deadline, in: channel)
            case .audience(let name, let user, let subscribed):
                recordChoice(audience: name, user: user, subscribed: subscribed)
            case .broadcast(let items):
                if let service = options.broadcasts {
                    await broadcastDurably(items, service: service, trigger: trigger, effectIndex: offset + index)
                    continue
                }
                var failed = 0
                for item in items {
                    guard let target = Channel(target: item.target), target.kind != .local, let built = await makeContent(item.content) else {
                        failed += 1
                        continue
                    }
                    var options = SendOptions.broadcast
                    options.clientMessageID = resuming?.clientMessageID(at: offset + index, recipient: item.target)
                        ?? names?.clientMessageID(at: index, recipient: item.target)
                    do {
                        _ = try await client.send(built, to: target, options: options)
                        self.options.activity?.sent(bot: bot.id)
                    } catch {
                        failed += 1
                        sendFailed(error)
                    }
                }
                log(failed == 0 ? .info : .warn, "broadcast", ["targets": String(items.count), "failed": String(failed)])
            case .log(let level, let message, let fields):
                log(level, message, fields.merging(["channel": channel.target]) { first, _ in first })
            }
        }
    }

    /// Sends one content; quoting `quoted` when given, under `clientMessageID` when given.
    /// Errors are logged. Returns what was sent, nil if nothing was.
    @discardableResult
    func send(_ content: OutgoingContent, to channel: Channel, quoting quoted: Message?, clientMessageID: UUID? = nil) async -> (any MessageContent)? {
        guard let built = await makeContent(content) else { return nil }
        var options = SendOptions.interactive
        options.clientMessageID = clientMessageID
        do {
            if let quoted {
                _ = try await client.reply(to: quoted, with: built, options: options)
            } else {
                _ = try await client.send(built, to: channel, options: options)
            }
            self.options.activity?.sent(bot: bot.id)
            return built
        } catch {
            log(.error, "send failed", ["channel": channel.target, "error": "\(error)"])
            sendFailed(error)
            return nil
        }
    }

    /// Tells the activity observer of a send that failed for good.
    func sendFailed(_ error: any Error) {
        options.activity?.sendFailed(bot: bot.id, .wrapping(error, as: .serverError))
    }

    /// Builds the message content: text, a built-in card, or one of the bot's cards. A
    /// built-in card with a `profileField` (a vCard's `user`) takes the fields not given from
    /// that user's profile.
    func makeContent(_ content: OutgoingContent) async -> (any MessageContent)? {
        switch content {
        case .text(let text):
            return TextContent(text)
        case .card(let name, let fields):
            if let card = BuiltInCard.named[name] {
                return card.make(fields, profile: await profile(for: card, fields))
            }
            guard let definition = bot.cards[name] else {
                log(.error, "unknown card", ["card": name])
                return nil
            }
            do {
                return try CardContent(definition: definition, values: fields.mapValues { .string($0) })
            } catch {
                log(.error, "card not built", ["card": name, "error": "\(error)"])
                return nil
            }
        }
    }

    /// The profile of the user a built-in card's `profileField` names, when it has one and the
    /// look-up finds it; a failed look-up is logged and the card is made from its fields alone.
    private func profile(for card: BuiltInCard, _ fields: [String: String]) async -> Profile? {
        guard let key = card.profileField, let user = fields[key], !user.isEmpty else { return nil }
        do {
            return try await client.profiles.profile(of: user)
        } catch {
            log(.warn, "profile lookup failed", ["user": user, "error": "\(error)"])
            return nil
        }
    }
}
