import Foundation
import ParleyBots
import ParleyCore
import ParleyHub

/// The audience half of `parley-bench broadcast`, in the same process on the same hub and
/// store right after the plain list: an audience of `count` members (imported), every tenth
/// opted out; a plain-list job to the members left (the yardstick), then a job to the
/// audience — snapshot of the members, then create, send and record. Every
/// answer is checked: the job sends to exactly the members left, each gets the message once,
/// nobody who opted out gets it, and the plain list's message reached everyone once.
struct AudienceBench {
    let hub: Hub
    let transport: any Transport
    let service: BroadcastService
    let count: Int

    func run() async throws {
        let store = service.store
        let users = (0..<count).map { Channel.person("u\($0)") }
        _ = try store.importMembers(bot: "news", audience: "daily", file: "bench", targets: users, now: Date())
        let optedOut = Set(stride(from: 0, to: count, by: 10))
        for index in optedOut.sorted() {
            try store.unsubscribe(bot: "news", audience: "daily", target: users[index].target, source: .command, now: Date())
        }
        let expected = count - optedOut.count
        // The first job created every user's channel with the bot: the audience job is compared
        // with a plain list sent to the same recipients once those exist, so both pay alike.
        let (listRate, listCPURate) = try await plainList(to: users.indices.filter { !optedOut.contains($0) }.map { users[$0] })

        let cpuBefore = cpuSeconds()
        let start = ContinuousClock.now
        var recipients = BroadcastRecipients()
        for member in try store.members(bot: "news", audience: "daily") { recipients.append(member) }
        let snapshot = ContinuousClock.now
        let job = try service.create(bot: "news", origin: "bench", message: try BroadcastMessage(text: "News for {{recipient.id}}"),
                                     recipients: recipients, audience: "daily").job
        let report = try await service.run(job.id, transport: transport)
        let end = ContinuousClock.now
        let cpu = cpuSeconds() - cpuBefore

        guard recipients.channels.count == expected, report.sent == expected, report.failed == 0, report.pending == 0 else {
            throw BenchFailure("broadcast audience: snapshot of \(recipients.channels.count) members, \(report); expected \(expected) sent")
        }
        try check(optedOut: optedOut, job: job.id)
        let total = (end - start).timeInterval
        let rate = Double(expected) / total
        print("broadcast.audience_snapshot_seconds \(String(format: "%.3f", (snapshot - start).timeInterval)) (\(count) members, \(optedOut.count) opted out: \(expected) recipients)")
        print("broadcast.audience_recipients_per_second \(Int(rate)) (snapshot, create, send and record, \(String(format: "%.2f", total)) s; checked: \(expected) delivered once, no opted-out member reached)")
        print("broadcast.plain_list_again_recipients_per_second \(Int(listRate)) (the same \(expected) recipients as a plain list, their channels existing)")
        print("broadcast.audience_vs_plain_percent \(Int((rate / listRate * 100).rounded())) (recipients/s of the audience job over that plain list's; target ≥ 90)")
        print("broadcast.audience_recipients_per_cpu_second \(Int(Double(expected) / cpu)) (\(Int((Double(expected) / cpu / listCPURate * 100).rounded()))% of that plain list's)")
    }

    /// A plain-list job to `recipients` (created, sent and recorded): its recipients per
    /// second of wall clock and of CPU.
    private func plainList(to recipients: [Channel]) async throws -> (Double, Double) {
        let cpuBefore = cpuSeconds()
        let start = ContinuousClock.now
        var list = BroadcastRecipients()
        for recipient in recipients { list.append(recipient) }
        let job = try service.create(bot: "news", origin: "bench", message: try BroadcastMessage(text: "List for {{recipient.id}}"),
                                     recipients: list).job
        let report = try await service.run(job.id, transport: transport)
        let seconds = (ContinuousClock.now - start).timeInterval, cpu = cpuSeconds() - cpuBefore
        guard report.sent == recipients.count else { throw BenchFailure("broadcast: FAILED: \(report)") }
        return (Double(recipients.count) / seconds, Double(recipients.count) / cpu)
    }

    /// Each user has the plain list's message once; each member left has the audience's once;
    /// nobody who opted out has it.
    private func check(optedOut: Set<Int>, job: String) throws {
        for index in 0..<count {
            let texts = try hub.messages(in: .person("news"), seenBy: "u\(index)").compactMap { $0.payload["text"]?.stringValue }
            let wanted = optedOut.contains(index) ? ["Hello u\(index)"] : ["Hello u\(index)", "List for u\(index)", "News for u\(index)"]
            guard texts == wanted else {
                throw BenchFailure("broadcast: u\(index) received \(texts), expected \(wanted)")
            }
        }
        guard let stored = try service.store.job(job), stored.sent == count - optedOut.count, stored.optedOut == 0 else {
            throw BenchFailure("broadcast audience: the stored job does not count \(count - optedOut.count) sent")
        }
    }
}
