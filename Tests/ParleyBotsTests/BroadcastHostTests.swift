import Foundation
import ParleyTesting
import ParleyBots
import ParleyCore
import ParleyHub
import Testing
import YAMLCoding

/// Broadcasts wired into the engine's host: a schedule fires on the virtual clock and a
/// `broadcast:` action runs as a stored job, both through the embedded hub.
@Suite struct BroadcastHostTests {
    static let yaml = """
        id: news
        name: News
        commands:
          announce:
            broadcast: { to: ["user:alice", "user:bob", "user:ghost"], send: { text: "Hi {{recipient.id}} from {{bot.name}}" } }
        schedules:
          - name: morning
            cron: "0 9 * * *"
            broadcast:
              to: ["user:alice", "user:bob"]
              send: { text: "Good morning {{recipient.name}}" }
        """

    struct Setup {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_796_115_480))   // 2026-12-01T08:58:00Z
        let hub: Hub
        let host: BotHost
        let service: BroadcastService

        init(database: TestDatabase) async throws {
            hub = try Hub(clock: clock)
            for profile in [Profile(id: "news", name: "News"), Profile(id: "alice", name: "Alice"), Profile(id: "bob", name: "Bob Stone")] {
                try hub.addUser(profile)
            }
            let definition = try YAMLDecoder(environment: [:]).decode(BotDefinition.self, from: BroadcastHostTests.yaml, file: "bots/news.yaml")
            let bot = try CompiledBot(id: "news", definition: definition, file: "bots/news.yaml")
            service = BroadcastService(store: try BroadcastStore(path: database.location("broadcasts")), clock: clock)
            host = BotHost(store: MemoryBotStore(), clock: clock,
                           options: BotHostOptions(broadcasts: service, schedules: try SchedulerStore(path: database.location("schedules"))))
            let transport = try hub.connect(user: "news")
            try host.add(bot, connection: BotConnection(transport: transport, deliveredEventCount: { transport.deliveredEventCount }))
            #expect(await host.start() == ["news"])
        }

        func texts(to user: String) throws -> [String] {
            try hub.messages(in: .person("news"), seenBy: user).compactMap { $0.payload["text"]?.stringValue }
        }

        /// Waits (bounded) until `count` jobs are stored and the host is idle.
        func settle(jobs count: Int) async throws {
            for _ in 0..<10_000 {
                if try service.jobs().count >= count { break }
                await Task.yield()
            }
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask { await host.waitUntilIdle(); return true }
                group.addTask { try await Task.sleep(for: .seconds(20)); return false }
                let idle = try await group.next() ?? false
                group.cancelAll()
                #expect(idle, "the host did not become idle")
            }
        }
    }

    @Test(arguments: TestDatabase.kinds) func scheduleFiresOnTheVirtualClock(database: TestDatabase) async throws {
        let setup = try await Setup(database: database)
        defer { Task { await setup.host.stop() } }
        await setup.clock.waitForSleepers(1)
        await setup.clock.advance(by: .seconds(120))
        try await setup.settle(jobs: 1)
        #expect(try setup.texts(to: "alice") == ["Good morning Alice"])
        #expect(try setup.texts(to: "bob") == ["Good morning Bob Stone"])
        let job = try #require(try setup.service.jobs().first)
        #expect(job.origin == "schedule:morning" && job.state == .finished && job.sent == 2)

        await setup.clock.advance(by: .seconds(86_400))
        try await setup.settle(jobs: 2)
        #expect(try setup.texts(to: "alice") == ["Good morning Alice", "Good morning Alice"])
    }

    @Test(arguments: TestDatabase.kinds) func broadcastActionIsAStoredJob(database: TestDatabase) async throws {
        let setup = try await Setup(database: database)
        defer { Task { await setup.host.stop() } }
        let alice = try ChatClient(transport: setup.hub.connect(user: "alice"), configuration: ChatClientConfiguration(clock: setup.clock))
        try await alice.connect()
        _ = try await alice.send(TextContent("/announce"), to: .person("news"))
        try await setup.settle(jobs: 1)
        #expect(try setup.texts(to: "alice").last == "Hi alice from News")
        #expect(try setup.texts(to: "bob") == ["Hi bob from News"])
        let job = try #require(try setup.service.jobs().first)
        #expect(job.origin == "action" && job.sent == 2 && job.failed == 1 && job.state == .finished)
        await alice.close()
    }
}
