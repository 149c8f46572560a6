import Foundation
import ParleyTesting
@testable import ParleyBots
import ParleyCore
import ParleyHub
import ParleyStore
import Testing

/// Audiences' members in the broadcast store, and jobs to an audience: snapshot at the start,
/// an opt-out honoured from its moment (also in a paused job), an opt-out that beats imports.
@Suite struct AudienceStoreTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: TestDatabase.kinds) func anOptOutBeatsALaterImportAndAnImportRunsOnce(database: TestDatabase) throws {
        let store = try BroadcastStore(path: database.location("broadcasts"))
        #expect(try store.subscribe(bot: "news", audience: "daily", target: "user:ann", source: .command, now: Self.start))
        #expect(try !store.subscribe(bot: "news", audience: "daily", target: "user:ann", source: .command, now: Self.start))
        #expect(try store.unsubscribe(bot: "news", audience: "daily", target: "user:bob", source: .command, now: Self.start))
        let file: [Channel] = [.person("ann"), .person("bob"), .person("cid")]
        #expect(try store.importMembers(bot: "news", audience: "daily", file: "subs.txt", targets: file, now: Self.start) == 1)
        // Once per bot and audience: a second start (or an edited file) adds nobody.
        #expect(try store.importMembers(bot: "news", audience: "daily", file: "subs.txt", targets: [.person("dan")], now: Self.start) == nil)
        #expect(try store.members(bot: "news", audience: "daily") == [.person("ann"), .person("cid")])
        #expect(try store.membership(bot: "news", audience: "daily", target: "user:bob") == false)
        // Another audience, another bot: their own lists.
        #expect(try store.members(bot: "news", audience: "weekly").isEmpty)
        #expect(try store.importMembers(bot: "other", audience: "daily", file: "subs.txt", targets: [.person("bob")], now: Self.start) == 1)

        let later = Self.start.addingTimeInterval(8 * 86_400)
        try store.unsubscribe(bot: "news", audience: "daily", target: "user:cid", source: .command, now: later)
        try store.subscribe(bot: "news", audience: "daily", target: "user:eve", source: .api, now: later)
        let summary = try store.audienceSummaries(bot: "news", since: later.addingTimeInterval(-7 * 86_400))
        #expect(summary == [AudienceSummary(bot: "news", audience: "daily", members: 2, optedOut: 2, joined: 1, left: 1)])
        #expect(try store.audienceSummaries(since: Self.start).count == 2)
    }

    /// A job to an audience at 1/s sends u0 and waits: paused there, u1 opts out. Resumed, u1
    /// is skipped without waiting for a token, u2 takes the first one, and u3, who opts out
    /// while the job waits for theirs, is skipped when it comes.
    @Test(arguments: TestDatabase.kinds) func aMemberWhoOptsOutWhileTheJobIsPausedIsSkippedOnResume(database: TestDatabase) async throws {
        let clock = ManualClock()
        let fixture = try BroadcastFixture(users: 4, storePath: database.location("broadcasts"), clock: clock)
        let store = fixture.store
        for index in 0..<4 { try store.subscribe(bot: "news", audience: "daily", target: "user:u\(index)", source: .command, now: Self.start) }
        var members = BroadcastRecipients()
        for member in try store.members(bot: "news", audience: "daily") { members.append(member) }
        let id = try fixture.service.create(bot: "news", origin: "test", message: try BroadcastMessage(text: "Hi"), recipients: members,
                                            rate: Rate(count: 1, per: .seconds(1)), audience: "daily").job.id
        let service = fixture.service, transport = fixture.transport
        let run = Task { try await service.run(id, transport: transport) }
        try await withTimeout { await clock.waitForSleepers(1) }
        _ = try await withTimeout { try await service.pause(id) }
        _ = try await withTimeout { try await run.value }
        try store.unsubscribe(bot: "news", audience: "daily", target: "user:u1", source: .command, now: Self.start)

        _ = try service.resume(id)
        let resumed = Task { try await service.run(id, transport: transport) }
        try await withTimeout { await clock.waitForSleepers(1) }
        try store.unsubscribe(bot: "news", audience: "daily", target: "user:u3", source: .command, now: Self.start)
        await clock.advance(by: .seconds(2))
        let report = try await withTimeout { try await resumed.value }
        #expect(report.sent == 2 && report.optedOut == 2 && report.pending == 0)
        #expect(try (0..<4).map { try fixture.messages(to: "u\($0)").count } == [1, 0, 1, 0])
        let job = try #require(try store.job(id))
        #expect(job.state == .finished && job.optedOut == 2 && job.audience == "daily")
        #expect(try store.recipients(job: id).map(\.outcome).filter { $0 == .optedOut }.count == 2)
        #expect(report.description.contains("2 sent, 0 failed, 2 opted out, 0 pending of 4"))
    }

    /// A job created from members read after an opt-out mark skips the look-ups while nobody
    /// opts out, and still skips whoever opts out after the mark: u1 between the snapshot and
    /// the job's creation, u2 while the job waits for a token.
    @Test(arguments: TestDatabase.kinds) func aJobFromACleanSnapshotStillSeesLaterOptOuts(database: TestDatabase) async throws {
        let clock = ManualClock()
        let fixture = try BroadcastFixture(users: 3, storePath: database.location("broadcasts"), clock: clock)
        let store = fixture.store
        for index in 0..<3 { try store.subscribe(bot: "news", audience: "daily", target: "user:u\(index)", source: .command, now: Self.start) }
        let mark = store.optOutMark()
        var members = BroadcastRecipients()
        for member in try store.members(bot: "news", audience: "daily") { members.append(member) }
        #expect(try store.unsubscribe(bot: "news", audience: "daily", target: "user:u1", source: .command, now: Self.start))
        // Opting out again changes nothing and does not move the mark.
        let moved = store.optOutMark()
        #expect(try !store.unsubscribe(bot: "news", audience: "daily", target: "user:u1", source: .command, now: Self.start))
        #expect(store.optOutMark() == moved && moved != mark)
        let id = try fixture.service.create(bot: "news", origin: "test", message: try BroadcastMessage(text: "Hi"), recipients: members,
                                            rate: Rate(count: 1, per: .seconds(1)), audience: "daily", optOutMark: mark).job.id
        let service = fixture.service, transport = fixture.transport
        let run = Task { try await service.run(id, transport: transport) }
        try await withTimeout { await clock.waitForSleepers(1) }
        try store.unsubscribe(bot: "news", audience: "daily", target: "user:u2", source: .command, now: Self.start)
        await clock.advance(by: .seconds(2))
        let report = try await withTimeout { try await run.value }
        #expect(report.sent == 1 && report.optedOut == 2)
        #expect(try (0..<3).map { try fixture.messages(to: "u\($0)").count } == [1, 0, 0])
    }

    /// A store written before audiences (migrations 1 and 2) opens, keeps its jobs, and takes audiences.
    @Test func aStoreOfTheSecondSchemaIsMigrated() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("parley.db")
        do {
            let old = try Migrations(name: "broadcast", steps: Array(BroadcastStore.migrations.steps[0..<2])).open(path)
            try old.run("INSERT INTO broadcast_jobs (id, bot, origin, payload, state, created, total) VALUES ('old', 'news', 'cli', ?, 'running', 0, 1)",
                        [.text(#"{"type":1,"text":"hi"}"#)])
        }
        let store = try BroadcastStore(path: path)
        let job = try #require(try store.job("old"))
        #expect(job.audience == nil && job.optedOut == 0 && job.pending == 1)
        #expect(try store.subscribe(bot: "news", audience: "daily", target: "user:a", source: .command, now: Self.start))
    }
}
