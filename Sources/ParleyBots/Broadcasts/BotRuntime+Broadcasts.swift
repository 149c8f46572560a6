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
            _ = try await service.run(job.id, route: .client(client))
        } catch {
            log(.error, "broadcast failed", ["error": error.description])
        }
    }

    /// A due scheduled broadcast: builds its audience and message, stores the job under the
    /// run's id (a run fired again after a crash finds it) and sends it.
    func runScheduledBroadcast(_ schedule: BroadcastSchedule, fire: ScheduleFire, service: BroadcastService) async {
        do {
            var recipients = BroadcastRecipients()
            try recipients.append(targets: schedule.targets)
            if let file = schedule.toFile { try recipients.append(file: file, displayPath: file) }
            let lookup = BroadcastMessage.keepingRecipient { [bot] path in
                path == "bot.id" ? bot.id : path == "bot.name" ? bot.name : nil
            }
            let content: OutgoingContent
            if let card = schedule.send.card {
                var fields: [String: String] = [:]
                if let text = schedule.send.text { fields["text"] = text.render(lookup) }
                for field in schedule.send.fields { fields[field.name] = field.template.render(lookup) }
                content = .card(name: card, fields: fields)
            } else {
                content = .text(schedule.send.text?.render(lookup) ?? "")
            }
            guard let built = await makeContent(content) else { return }
            let job = try service.create(id: fire.jobID, bot: bot.id, origin: "schedule:\(fire.schedule)",
                                         message: BroadcastMessage(payload: built.encoded()), recipients: recipients, rate: schedule.rate).job
            log(.info, "schedule fired", ["schedule": fire.schedule, "job": job.id, "catch_up": String(fire.isCatchUp)])
            _ = try await service.run(job.id, route: .client(client))
        } catch {
            log(.error, "scheduled broadcast failed", ["schedule": fire.schedule, "error": error.description])
        }
    }
}
