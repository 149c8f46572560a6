import Foundation
import ParleyBots
import ParleyCore
import ParleyHub

/// The audience half of `parley-bench broadcast`, in the same process on the same hub and
/// store right after the plain list: an audience of `count` members (imported), every tenth
/// opted out. Two rounds, each a plain-list job to the members left (the yardstick) and a job
/// to the audience — snapshot of the members, then create, send and record — in alternating
/// order, so neither always runs on the larger database; the best of each is reported (the
/// machine is shared). Every answer is checked: each job sends to exactly the members left,
/// each gets every message once, nobody who opted out gets one, and the plain list's first
/// message reached everyone once.
struct AudienceBench {
    let hub: Hub
    let transport: any Transport
    let service: BroadcastService
    let count: Int
    static let rounds = 2

    /// One job's figures.
    struct Figures {
        var recipientsPerSecond: Double
        var recipientsPerCPUSecond: Double
        var snapshotSeconds: Double = 0
    }

    func run() async throws {
        let store = service.store
        let users = (0..<count).map { Channel.person("u\($0)") }
        _ = try store.importMembers(bot: "news", audience: "daily", file: "bench", targets: users, now: Date())
        let optedOut = Set(stride(from: 0, to: count, by: 10))
        for index in optedOut.sorted() {
            try store.unsubscribe(bot: "news", audience: "daily", target: users[index].target, source: .command, now: Date())
        }
        let members = users.indices.filter { !optedOut.contains($0) }.map { users[$0] }
        // The first job created every user's channel with the bot: both kinds of job here find
        // them existing, so they pay alike.
        var lists: [Figures] = [], audiences: [Figures] = []
        for round in 0..<Self.rounds {
            if round % 2 == 0 {
                lists.append(try await plainList(to: members, round: round))
                audiences.append(try await audienceJob(expected: members.count, round: round))
            } else {
                audiences.append(try await audienceJob(expected: members.count, round: round))
                lists.append(try await plainList(to: members, round: round))
            }
        }
        try check(optedOut: optedOut)
        let list = lists.max { $0.recipientsPerSecond < $1.recipientsPerSecond }!
        let audience = audiences.max { $0.recipientsPerSecond < $1.recipientsPerSecond }!
        let listCPU = lists.map(\.recipientsPerCPUSecond).max()!, audienceCPU = audiences.map(\.recipientsPerCPUSecond).max()!
        let snapshot = audiences.map(\.snapshotSeconds).min()!
        print("broadcast.audience_snapshot_seconds \(String(format: "%.3f", snapshot)) (\(count) members, \(optedOut.count) opted out: \(members.count) recipients)")
        print("broadcast.audience_recipients_per_second \(Int(audience.recipientsPerSecond)) (snapshot, create, send and record; best of \(Self.rounds); checked: \(members.count) delivered once a job, no opted-out member reached)")
        print("broadcast.plain_list_again_recipients_per_second \(Int(list.recipientsPerSecond)) (the same \(members.count) recipients as a plain list, their channels existing; best of \(Self.rounds))")
        print("broadcast.audience_vs_plain_percent \(Int((audience.recipientsPerSecond / list.recipientsPerSecond * 100).rounded())) (recipients/s of the audience job over that plain list's; target ≥ 90)")
        print("broadcast.audience_recipients_per_cpu_second \(Int(audienceCPU)) (\(Int((audienceCPU / listCPU * 100).rounded()))% of that plain list's)")
    }

    /// A job to the audience as a schedule makes it: the opt-out mark, the members, the job.
    private func audienceJob(expected: Int, round: Int) async throws -> Figures {
        let store = service.store
        let cpuBefore = cpuSeconds()
        let start = ContinuousClock.now
        let mark = store.optOutMark()
        var recipients = BroadcastRecipients()
        for member in try store.members(bot: "news", audience: "daily") { recipients.append(member) }
        let snapshot = ContinuousClock.now
        let job = try service.create(bot: "news", origin: "bench", message: try BroadcastMessage(text: "News \(round) for {{recipient.id}}"),
                                     recipients: recipients, audience: "daily", optOutMark: mark).job
        let report = try await service.run(job.id, transport: transport)
        let seconds = (ContinuousClock.now - start).timeInterval, cpu = cpuSeconds() - cpuBefore
        guard recipients.channels.count == expected, report.sent == expected, report.failed == 0, report.pending == 0 else {
            throw BenchFailure("broadcast audience: snapshot of \(recipients.channels.count) members, \(report); expected \(expected) sent")
        }
        return Figures(recipientsPerSecond: Double(expected) / seconds, recipientsPerCPUSecond: Double(expected) / cpu,
                       snapshotSeconds: (snapshot - start).timeInterval)
    }

    /// A plain-list job to `recipients` (created, sent and recorded).
    private func plainList(to recipients: [Channel], round: Int) async throws -> Figures {
        let cpuBefore = cpuSeconds()
        let start = ContinuousClock.now
        var list = BroadcastRecipients()
        for recipient in recipients { list.append(recipient) }
        let job = try service.create(bot: "news", origin: "bench", message: try BroadcastMessage(text: "List \(round) for {{recipient.id}}"),
                                     recipients: list).job
        let report = try await service.run(job.id, transport: transport)
        let seconds = (ContinuousClock.now - start).timeInterval, cpu = cpuSeconds() - cpuBefore
        guard report.sent == recipients.count, report.failed == 0 else { throw BenchFailure("broadcast: FAILED: \(report)") }
        return Figures(recipientsPerSecond: Double(recipients.count) / seconds, recipientsPerCPUSecond: Double(recipients.count) / cpu)
    }

    /// Each user has the plain list's first message once; each member left has every later
    /// job's message once; nobody who opted out has one of those.
    private func check(optedOut: Set<Int>) throws {
        for index in 0..<count {
            let texts = try hub.messages(in: .person("news"), seenBy: "u\(index)").compactMap { $0.payload["text"]?.stringValue }
            var wanted = ["Hello u\(index)"]
            if !optedOut.contains(index) {
                wanted += (0..<Self.rounds).flatMap { ["List \($0) for u\(index)", "News \($0) for u\(index)"] }
            }
            guard texts.count == wanted.count, Set(texts) == Set(wanted) else {
                throw BenchFailure("broadcast: u\(index) received \(texts), expected \(wanted.sorted())")
            }
        }
    }
}
