import Foundation
import ParleyBots
import ParleyCore
import ParleyHub
import ParleyTesting
import Testing

/// On a shared database a process joins the running jobs of bots it does not run (the bot's
/// holder is another process), through the route it is given for the bot: its runs claim
/// chunks beside the holder's.
struct BroadcastHelpTests {
    struct Setup {
        let clock = ManualClock()
        let hub: Hub
        let service: BroadcastService
        let host: BotHost

        init(database: TestDatabase) async throws {
            hub = try Hub(clock: clock)
            try hub.addUser(Profile(id: "news", name: "News"))
            for index in 0..<3 { try hub.addUser(Profile(id: "u\(index)", name: "User \(index)")) }
            service = BroadcastService(store: try BroadcastStore(path: database.location("help")), clock: clock)
            // A process running no bot: it stands by, and helps.
            host = BotHost(store: MemoryBotStore(), clock: clock, options: BotHostOptions(broadcasts: service))
            #expect(await host.start() == [])
        }

        func create(rate: Rate? = nil) throws -> String {
            var recipients = BroadcastRecipients()
            try recipients.append(targets: BroadcastFixture.targets(0..<3))
            return try service.create(bot: "news", origin: "test", message: try BroadcastMessage(text: "Hi"), recipients: recipients,
                                      rate: rate).job.id
        }

        func routes() throws -> (String) -> BroadcastRoute? {
            let transport = try hub.connect(user: "news")
            return { $0 == "news" ? .transport(transport) : nil }
        }
    }

    @Test(.enabled(if: TestDatabase.postgresURL != nil, "no PostgreSQL: run scripts/postgres start"))
    func aProcessSendsTheJobOfABotItDoesNotRun() async throws {
        let setup = try await Setup(database: .postgres)
        let id = try setup.create()
        #expect(setup.host.helpBroadcasts(notHeld: [], route: try setup.routes()) == 1)
        try await withTimeout { await setup.host.waitUntilIdle() }
        for index in 0..<3 { #expect(try setup.hub.messages(in: .person("news"), seenBy: "u\(index)").count == 1) }
        #expect(try setup.service.store.job(id)?.state == .finished)
        #expect(try setup.service.store.senders(job: id, now: setup.clock.now()).map(\.done) == [3])
        // Finished: nothing to join any more.
        #expect(setup.host.helpBroadcasts(notHeld: [], route: try setup.routes()) == 0)
        await setup.host.stop()
    }

    @Test(.enabled(if: TestDatabase.postgresURL != nil, "no PostgreSQL: run scripts/postgres start"))
    func jobsWithARateOrOfBotsRunHereOrWithoutARouteAreNotJoined() async throws {
        let setup = try await Setup(database: .postgres)
        _ = try setup.create(rate: Rate(count: 1, per: .seconds(1)))
        #expect(setup.host.helpBroadcasts(notHeld: [], route: try setup.routes()) == 0)
        _ = try setup.create()
        #expect(setup.host.helpBroadcasts(notHeld: ["news"], route: try setup.routes()) == 0)
        #expect(setup.host.helpBroadcasts(notHeld: [], route: { _ in nil }) == 0)
        await setup.host.stop()
    }

    @Test func aSQLiteStoreBelongsToOneProcessAndNeedsNoHelp() async throws {
        let setup = try await Setup(database: .sqlite)
        _ = try setup.create()
        #expect(setup.host.helpBroadcasts(notHeld: [], route: try setup.routes()) == 0)
        await setup.host.stop()
    }
}
