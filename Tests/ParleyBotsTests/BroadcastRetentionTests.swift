import Foundation
import ParleyTesting
import ParleyBots
import ParleyCore
import ParleyHub
import Testing

/// `storage.retention` for broadcasts: a job finished before the cutoff goes with its
/// recipients; a recent one stays, and a running one stays however old.
@Suite struct BroadcastRetentionTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: TestDatabase.kinds) func finishedJobsOlderThanTheCutoffGoWithTheirRecipients(database: TestDatabase) throws {
        let store = try BroadcastStore(path: database.location("broadcasts"))
        let recipients: [Channel] = [.person("a"), .person("b")]
        for (id, day) in [("old", 0.0), ("recent", 40.0), ("running", 0.0)] {
            let created = try store.create(id: id, bot: "news", origin: "test", message: try BroadcastMessage(text: "hi"), ratePerSecond: nil,
                                           recipients: recipients, now: Self.start.addingTimeInterval(day * 86_400))
            #expect(created)
            if id != "running" { try store.finish(job: id, now: Self.start.addingTimeInterval(day * 86_400 + 60)) }
        }
        #expect(try store.prune(before: Self.start.addingTimeInterval(30 * 86_400)) == 1)
        #expect(try store.job("old") == nil)
        #expect(try store.recipients(job: "old").isEmpty)
        #expect(try store.job("recent")?.state == .finished)
        #expect(try store.recipients(job: "recent").count == 2)
        #expect(try store.job("running")?.state == .running)
        #expect(try store.recipients(job: "running").count == 2)
        // The id is free again: the same id starts a new job.
        #expect(try store.create(id: "old", bot: "news", origin: "test", message: try BroadcastMessage(text: "hi"), ratePerSecond: nil,
                                 recipients: recipients, now: Self.start.addingTimeInterval(31 * 86_400)))
    }
}

/// A hub keeps only its newest receipts in memory; a resumed job marks its sends as resends,
/// so a recipient whose message went out just before a crash (sent, not recorded) is not
/// sent it twice, however many messages the hub stored since.
@Suite struct BroadcastResendTests {
    @Test(arguments: TestDatabase.kinds) func aResumedJobIsSentOnceEvenPastTheHubsReceiptWindow(database: TestDatabase) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = JumpingClock()
        let hub = try Hub(path: folder.file("hub.db"), clock: clock, configuration: HubConfiguration(receiptWindow: 1))
        try hub.addUser(Profile(id: "news", name: "News"))
        for index in 0..<3 { try hub.addUser(Profile(id: "u\(index)", name: "User \(index)")) }
        let news = try hub.connect(user: "news")
        var recipients = BroadcastRecipients()
        try recipients.append(targets: BroadcastFixture.targets(0..<3))
        let store = try BroadcastStore(path: database.location("broadcasts"))
        let first = BroadcastService(store: store, clock: clock, configuration: BroadcastConfiguration(random: { 0.5 }))
        let job = try first.create(id: "jobD", bot: "news", origin: "test", message: try BroadcastMessage(text: "hi"), recipients: recipients).job
        // The first run sent u0's message and died before recording it; then other traffic
        // pushed that receipt out of the hub's memory.
        let lost = OutgoingEnvelope(channel: .person("u0"), clientMessageID: BroadcastUUID.message(job: job.id, target: "user:u0"),
                                    payload: try BroadcastMessage(text: "hi").render(for: .person("u0"), name: nil))
        _ = try await news.send(lost)
        for index in 1...3 { _ = try await hub.connect(user: "u1").send(OutgoingEnvelope(channel: .person("u2"), payload: TextContent("chat \(index)").encoded())) }

        // The next process resumes the job.
        let second = BroadcastService(store: store, clock: clock, configuration: BroadcastConfiguration(random: { 0.5 }))
        let report = try await second.run(job.id, transport: news)
        #expect(report.sent == 3 && report.failed == 0)
        for index in 0..<3 {
            #expect(try hub.messages(in: .person("news"), seenBy: "u\(index)").count == 1, "u\(index)")
        }
    }
}
