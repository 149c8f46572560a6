import Foundation
import ParleyTesting
import ParleyBots
import ParleyCore
import ParleyHub
import Testing
import YAMLCoding

/// A bot taken over from another process (a shared database) keeps its schedules' stored
/// last runs: a run that came due while no process ran it fires once, even in a process
/// whose scheduler was already running for its own bots.
@Suite struct ScheduleTakeoverTests {
    static let other = """
        id: other
        schedules:
          - name: noon
            cron: "0 12 * * *"
            broadcast: { to: ["user:bob"], send: { text: "Lunch" } }
        """

    @Test(arguments: TestDatabase.kinds) func aRunDueWhileNoProcessRanTheBotFiresOnceAtTakeover(database: TestDatabase) async throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_796_115_480))   // 2026-12-01T08:58:00Z
        let hub = try Hub(clock: clock)
        for profile in [Profile(id: "news", name: "News"), Profile(id: "other"), Profile(id: "alice", name: "Alice"), Profile(id: "bob", name: "Bob Stone")] {
            try hub.addUser(profile)
        }
        func compile(_ yaml: String, _ id: String) throws -> CompiledBot {
            try CompiledBot(id: id, definition: try YAMLDecoder(environment: [:]).decode(BotDefinition.self, from: yaml, file: "bots/\(id).yaml"),
                            file: "bots/\(id).yaml")
        }
        let service = BroadcastService(store: try BroadcastStore(path: database.location("broadcasts")), clock: clock)
        let schedules = try SchedulerStore(path: database.location("schedules"))
        // The process that ran `news` before fired yesterday's run, then died.
        try schedules.setLastFire(bot: "news", schedule: "morning", Date(timeIntervalSince1970: 1_796_115_480 - 86_400 + 120))
        let host = BotHost(store: MemoryBotStore(), clock: clock, options: BotHostOptions(broadcasts: service, schedules: schedules))
        let otherTransport = try hub.connect(user: "other")
        try host.add(try compile(Self.other, "other"), connection: BotConnection(transport: otherTransport))
        #expect(await host.start() == ["other"])
        await clock.waitForSleepers(1)
        await clock.advance(by: .seconds(150))   // 09:00:30: today's run came due with no process running news
        let newsTransport = try hub.connect(user: "news")
        var changes = BotChanges(added: [(try compile(BroadcastHostTests.yaml, "news"), BotConnection(transport: newsTransport))])
        changes.takenOver = true
        #expect(await host.apply(changes) == ["news"])
        for _ in 0..<10_000 where try service.jobs().isEmpty { await Task.yield() }
        await host.waitUntilIdle()
        let texts = try hub.messages(in: .person("news"), seenBy: "alice").compactMap { $0.payload["text"]?.stringValue }
        #expect(texts == ["Good morning Alice"])
        await host.stop()
    }
}
