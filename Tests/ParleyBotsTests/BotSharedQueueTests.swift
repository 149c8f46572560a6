import Foundation
import ParleyBots
import ParleyCore
import ParleyHub
import Synchronization
import Testing
import ParleyTesting

/// Two bots handing off into one queue: ticket numbers are per queue, so an agent's command
/// names one ticket and reaches one customer.
@Suite struct BotSharedQueueTests {
    static let agents = Channel.group("agents")

    static func bot(_ id: String) throws -> CompiledBot {
        try BotHostTests.compile(id, """
            name: \(id.capitalized)
            commands:
              human:
                handoff: { queue: agents, note: "Help" }
            """)
    }

    /// `support` (Alice's bot) and `billing` (Bob's) in one host on one store, both in
    /// `group:agents` with Carol, the agent.
    final class TwoBots: Sendable {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_796_112_000))
        let hub: Hub
        let bots: [CompiledBot]
        let host = LockedHost()

        init() throws {
            hub = try Hub(clock: clock)
            bots = try [BotSharedQueueTests.bot("support"), BotSharedQueueTests.bot("billing")]
            for id in ["support", "billing", "alice", "bob", "carol", "dave"] {
                try hub.addUser(Profile(id: id, name: id.capitalized))
            }
            try hub.createGroup("agents", members: ["support", "billing", "carol"])
        }

        func start(store: any BotStore) async throws {
            let host = BotHost(store: store, clock: clock)
            for bot in bots {
                let transport = try hub.connect(user: bot.id)
                try host.add(bot, connection: BotConnection(transport: transport, deliveredEventCount: { transport.deliveredEventCount }))
            }
            #expect(await host.start() == ["support", "billing"])
            self.host.set(host)
        }

        func stop() async { await host.get()?.stop() }

        /// `user` sends `text` to `channel` with a fresh connection; returns once the bots are idle.
        func say(_ text: String, as user: String, to channel: Channel) async throws {
            let transport = try hub.connect(user: user)
            _ = try await transport.send(OutgoingEnvelope(channel: channel, payload: ["type": 1, "text": .string(text)]))
            let host = try #require(host.get())
            try await withTimeout("waitUntilIdle") { await host.waitUntilIdle() }
        }

        /// What `bot` sent into `channel` as `viewer` sees it: texts, and ticket cards as their number.
        func sent(by bot: String, in channel: Channel, seenBy viewer: String) throws -> [String] {
            try hub.messages(in: channel, seenBy: viewer).filter { $0.sender == bot }.map { envelope in
                let message = try Message(envelope: envelope, registry: bots[0].registry)
                if let ticket = message.content as? TicketContent { return "card #\(ticket.number)" }
                return message.text ?? message.content.fallback
            }
        }
    }

    @Test func anAgentsReplyReachesExactlyTheCustomerOfTheTicketNamed() async throws {
        let bots = try TwoBots()
        try await bots.start(store: MemoryBotStore())
        try await bots.say("/human", as: "alice", to: .person("support"))
        try await bots.say("/human", as: "bob", to: .person("billing"))
        #expect(try bots.sent(by: "support", in: Self.agents, seenBy: "carol") == ["card #1"])
        #expect(try bots.sent(by: "billing", in: Self.agents, seenBy: "carol") == ["card #2"])

        try await bots.say("/take 2", as: "carol", to: Self.agents)
        try await bots.say("/reply 2 SECRET for Bob", as: "carol", to: Self.agents)
        #expect(try bots.sent(by: "billing", in: .person("billing"), seenBy: "bob") == ["SECRET for Bob"])
        #expect(try bots.sent(by: "support", in: .person("support"), seenBy: "alice") == [])

        try await bots.say("/resolve 1", as: "carol", to: Self.agents)
        // One answer to each command, from the bot whose ticket it names.
        #expect(try bots.sent(by: "support", in: Self.agents, seenBy: "carol") == ["card #1", "Ticket #1 resolved by Carol."])
        #expect(try bots.sent(by: "billing", in: Self.agents, seenBy: "carol") == ["card #2", "Ticket #2 taken by Carol."])
        // Bob's ticket is still open: his words go to the agents; Alice talks to her bot again.
        try await bots.say("still there?", as: "bob", to: .person("billing"))
        #expect(try bots.sent(by: "billing", in: Self.agents, seenBy: "carol").last == "#2 Bob: still there?")
        try await bots.say("/human", as: "alice", to: .person("support"))
        #expect(try bots.sent(by: "support", in: Self.agents, seenBy: "carol").last == "card #3")
        await bots.stop()
    }

    @Test(arguments: TestDatabase.kinds) func numberingGoesOnAfterARestartWithoutReuse(database: TestDatabase) async throws {
        let path = database.location("shared-queue")
        let bots = try TwoBots()
        try await bots.start(store: DatabaseBotStore(path: path))
        try await bots.say("/human", as: "alice", to: .person("support"))
        try await bots.say("/human", as: "bob", to: .person("billing"))
        await bots.stop()

        try await bots.start(store: DatabaseBotStore(path: path))
        try await bots.say("/human", as: "dave", to: .person("support"))
        #expect(try bots.sent(by: "support", in: Self.agents, seenBy: "carol") == ["card #1", "card #3"])
        #expect(try bots.sent(by: "billing", in: Self.agents, seenBy: "carol") == ["card #2"])
        try await bots.say("/reply 2 SECRET for Bob", as: "carol", to: Self.agents)
        #expect(try bots.sent(by: "billing", in: .person("billing"), seenBy: "bob") == ["SECRET for Bob"])
        #expect(try bots.sent(by: "support", in: .person("support"), seenBy: "alice") == [])
        #expect(try bots.sent(by: "support", in: .person("support"), seenBy: "dave") == [])
        await bots.stop()
    }
}

/// The running host of a test, set once started.
final class LockedHost: Sendable {
    private let host = Mutex<BotHost?>(nil)
    func set(_ value: BotHost) { host.withLock { $0 = value } }
    func get() -> BotHost? { host.withLock { $0 } }
}
