import Foundation
import ParleyCore

/// The `broadcast` action and scheduled broadcasts through the durable broadcast machinery
/// (`BroadcastService`), when the host has one.
extension BotRuntime {
    /// A `broadcast:` action: one job for the plan's rendered contents (each recipient's
    /// own payload), stored before the first send and awaited like any other action. Its id
    /// comes from the triggering message, so handling that message again finds the job.
    func broadcastDurably(_ items: [BroadcastItem], service: BroadcastService,
                          trigger: Message?, effectIndex: Int) async {
        var recipients = BroadcastRecipients()
        var payloads: [JSONValue] = []
        for item in items {
            guard let target = try? BroadcastRecipients.parse(item.target) else {
                log(.warn, "broadcast target skipped: expected user:ID or group:ID", ["target": item.target])
                continue
            }
            guard let built = await makeContent(item.content) else { continue }
            if recipients.append(target) { payloads.append(built.encoded()) }
        }
        guard let first = payloads.first else { return }
        let id = trigger.map { UUID(namespace: BroadcastUUID.namespace, name: "action\u{0}\(bot.id)\u{0}\($0.id)\u{0}\(effectIndex)") }
            ?? UUID()
        do {
            let job = try service.create(id: id.uuidString.lowercased(), bot: bot.id, origin: "action",
                                         message: BroadcastMessage(literal: first), recipients: recipients, payloads: payloads).job
            _ = try await service.run(job.id, route: service.route(through: client))
        } catch {
            log(.error, "broadcast failed", ["error": error.description])
        }
    }

    /// A due scheduled broadcast: builds its audience and message, stores the job under the
    /// run's id (a run fired again after a crash finds it) and sends it.
    func runScheduledBroadcast(_ schedule: BroadcastSchedule, fire: ScheduleFire, service: BroadcastService) async {
        do {
            let audience = schedule.audience.flatMap { bot.audience($0) }
            guard let message = try await broadcastMessage(schedule.send, audience: audience) else { return }
            // A run fired again after a crash finds its job: who gets it is not read again.
            let exists = try service.store.job(fire.jobID) != nil
            let mark = service.store.optOutMark()
            let recipients = exists ? BroadcastRecipients() : try self.recipients(of: schedule, audience: audience, store: service.store)
            if !exists, let audience, recipients.channels.isEmpty {
                log(.info, "schedule fired: its audience has no members", ["schedule": fire.schedule, "audience": audience.name])
                return
            }
            let job = try service.create(id: fire.jobID, bot: bot.id, origin: "schedule:\(fire.schedule)",
                                         message: message, recipients: recipients, rate: schedule.rate, audience: audience?.name,
                                         optOutMark: mark).job
            log(.info, "schedule fired", ["schedule": fire.schedule, "job": job.id, "catch_up": String(fire.isCatchUp)])
            _ = try await service.run(job.id, route: service.route(through: client))
        } catch {
            log(.error, "scheduled broadcast failed", ["schedule": fire.schedule, "error": error.description])
        }
    }

    /// A subscribe command or unsubscribe word of `user`: stored with its time and source
    /// before the actions after it run (an opt-out is honoured at once, also by a job to the
    /// audience that is running).
    func recordChoice(audience: String, user: String, subscribed: Bool) {
        guard let store = options.broadcasts?.store else {
            log(.warn, "audience choice not kept: this host keeps no broadcast store", ["audience": audience, "user": user])
            return
        }
        let target = Channel.person(user).target
        do {
            if subscribed {
                try store.subscribe(bot: bot.id, audience: audience, target: target, source: .command, now: clock.now())
            } else {
                try store.unsubscribe(bot: bot.id, audience: audience, target: target, source: .command, now: clock.now())
            }
            log(.info, subscribed ? "subscribed" : "unsubscribed", ["audience": audience, "user": user])
        } catch {
            log(.error, "audience choice not kept", ["audience": audience, "user": user, "error": error.description])
        }
    }

    /// Who a scheduled broadcast goes to: its audience's members now (the snapshot the job
    /// keeps), or its `to` targets and `to_file` lines.
    private func recipients(of schedule: BroadcastSchedule, audience: CompiledAudience?,
                            store: BroadcastStore) throws(BroadcastError) -> BroadcastRecipients {
        var recipients = BroadcastRecipients()
        if let audience {
            for member in try store.members(bot: bot.id, audience: audience.name) { recipients.append(member) }
            return recipients
        }
        try recipients.append(targets: schedule.targets)
        if let file = schedule.toFile { try recipients.append(file: file, displayPath: file) }
        return recipients
    }

    /// Stores the job of an order from outside the bot files (see `BotHost.startBroadcast`),
    /// its message built as a schedule's is.
    func createBroadcast(_ order: BroadcastOrder, recipients: BroadcastRecipients,
                         service: BroadcastService) async throws(BroadcastError) -> (job: BroadcastJob, created: Bool) {
        let send = try order.compiled()
        if let card = send.card, BuiltInCard.named[card] == nil, bot.cards[card] == nil {
            throw BroadcastError(.invalidMessage, "send.card: bot '\(bot.id)' has no card '\(card)'")
        }
        guard let message = try await broadcastMessage(send) else {
            throw BroadcastError(.invalidMessage, "send: the message cannot be built (the log says why)")
        }
        return try service.create(id: order.id ?? UUID().uuidString.lowercased(), bot: bot.id, origin: order.origin,
                                  message: message, recipients: recipients, rate: order.rate)
    }

    /// A broadcast's `send:` as this bot sends it: `bot.*` and (to an audience) `unsubscribe`
    /// filled in, `recipient.*` kept for each recipient. Nil when the content cannot be built (logged); `invalidMessage` for
    /// a placeholder a broadcast cannot fill.
    private func broadcastMessage(_ send: CompiledSend, audience: CompiledAudience? = nil) async throws(BroadcastError) -> BroadcastMessage? {
        let lookup = BroadcastMessage.keepingRecipient { [bot] path in
            switch path {
            case "bot.id": bot.id
            case "bot.name": bot.name
            case "unsubscribe": audience?.unsubscribeHint
            default: nil
            }
        }
        let content: OutgoingContent
        if let card = send.card {
            var fields: [String: String] = [:]
            if let text = send.text { fields["text"] = text.render(lookup) }
            for field in send.fields { fields[field.name] = field.template.render(lookup) }
            content = .card(name: card, fields: fields)
        } else {
            content = .text(send.text?.render(lookup) ?? "")
        }
        guard let built = await makeContent(content) else { return nil }
        return try BroadcastMessage(payload: built.encoded())
    }
}
