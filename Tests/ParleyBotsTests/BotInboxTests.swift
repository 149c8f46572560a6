import Foundation
import ParleyBots
import ParleyCore
import Synchronization
import Testing
import ParleyTesting

/// The inbox: a message the server delivered is kept in the engine store until it is
/// handled, so a bot that stops (or dies) with messages still waiting for their turn answers
/// them after the restart, each once — the server does not deliver them again.
@Suite struct BotInboxTests {
    static let yaml = """
        id: support
        commands:
          echo:
            args: [text]
            reply: "{{args.text}}"
          start:
            do:
              - goto: ask.name
        flows:
          ask:
            name:
              reply: "Your name?"
              ask: { save: name }
              next: done
            done:
              reply: "Hi {{vars.name}}"
        """

    private static func path(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("engine-inbox-\(name)-\(UUID().uuidString).db").path
    }

    @Test(arguments: TestDatabase.kinds) func messagesWaitingForTheirTurnAtAStopAreAnsweredOnceAfterTheRestart(database: TestDatabase) async throws {
        let store = database.location("engine"), chat = Self.path("chat")
        defer { for path in [store, chat] { try? FileManager.default.removeItem(atPath: path) } }
        let fixture = try BotFixture(yaml: Self.yaml)
        // The server refuses the bot's sends for a minute of (virtual) time: the first answer
        // waits in the outbox, the bot's conversation waits for it, the other messages for
        // their turn.
        let limited = Mutex<LimitedTransport?>(nil)
        try await fixture.start(store: DatabaseBotStore(path: store), options: BotHostOptions(stopGrace: .milliseconds(300))) { connection in
            let transport = LimitedTransport(base: connection.transport)
            limited.withLock { $0 = transport }
            connection.transport = transport
            connection.storage = .sqlite(path: chat)
        }
        let transport = try #require(limited.withLock { $0 })
        let alice = try await fixture.client("alice")
        for number in 1...3 { _ = try await alice.send(TextContent("/echo \(number)"), to: .person("support")) }
        try await withTimeout("the first answer refused") {
            while transport.refused == 0 { try await Task.sleep(for: .milliseconds(10)) }
        }
        // Stopping gives work in flight its grace, then closes the client: nothing more goes out.
        try await fixture.runningHost.stop()
        #expect(try fixture.botTexts() == [])

        try await fixture.start(store: DatabaseBotStore(path: store)) { connection in
            connection.storage = .sqlite(path: chat)
        }
        try await fixture.idle()
        #expect(try fixture.botTexts() == ["1", "2", "3"])
        #expect(try DatabaseBotStore(path: store).unhandled(bot: "support").isEmpty)
        await fixture.shutdown()
    }

    @Test(arguments: TestDatabase.kinds) func aMessageHandledAgainAfterACrashSendsNothingTwiceAndMovesTheFlowOnce(database: TestDatabase) async throws {
        let path = database.location("engine")
        let fixture = try BotFixture(yaml: Self.yaml)
        try await fixture.start(store: DatabaseBotStore(path: path))
        try await fixture.say("/start")
        #expect(try fixture.botTexts() == ["Your name?"])
        let store = try DatabaseBotStore(path: path)
        let waiting = try #require(try store.state(bot: "support", channel: "user:alice"))
        let answer = try await fixture.say("Bob")
        #expect(try fixture.botTexts() == ["Hi Bob"])
        let done = try store.state(bot: "support", channel: "user:alice")
        #expect(done?.waiting == nil)
        try await fixture.runningHost.stop()

        // A crash right after "Hi Bob" went out, before the state and the inbox were written:
        // on disk the flow still waits for the name and "Bob" is still unhandled.
        try store.save(waiting, bot: "support", channel: "user:alice")
        var unhandled = ReceivedMessage(answer)
        unhandled.channel = .person("alice")  // as the bot sees it
        try await store.receive([unhandled], bot: "support")
        try await fixture.start(store: DatabaseBotStore(path: path))
        try await fixture.idle()
        // Handled again under the same client message number: the hub shows it once.
        let texts = try fixture.botTexts()
        #expect(texts == [])
        let state = try store.state(bot: "support", channel: "user:alice")
        #expect(state == done)
        #expect(try store.unhandled(bot: "support").isEmpty)
        // And the conversation goes on from the end of the flow.
        try await fixture.say("/echo again")
        let later = try fixture.botTexts()
        #expect(later == ["again"])
        await fixture.shutdown()
    }

    @Test(arguments: TestDatabase.kinds) func aFirstMessageHandledAgainAfterACrashIsStillGreeted(database: TestDatabase) async throws {
        let path = database.location("engine")
        let greeting = "greeting:\n  - reply: \"Welcome!\"\n"
        // The message as another run received it (its id and sender), on a hub of its own.
        let first = try BotFixture(yaml: Self.yaml)
        try await first.start()
        let message = try await first.say("/echo 1")
        await first.shutdown()

        // A crash after the greeting was recorded for that message but before anything went
        // out: the user is marked greeted, and the message is still unhandled.
        let store = try DatabaseBotStore(path: path)
        #expect(try await store.markGreeted(bot: "support", key: "user:alice", at: Date(), message: message.id))
        var unhandled = ReceivedMessage(message)
        unhandled.channel = .person("alice")
        try await store.receive([unhandled], bot: "support")
        let fixture = try BotFixture(yaml: Self.yaml + "\n" + greeting)
        try await fixture.start(store: DatabaseBotStore(path: path))
        try await fixture.idle()
        #expect(try fixture.botTexts() == ["Welcome!", "1"])
        // A later message is not greeted again.
        try await fixture.say("/echo 2")
        #expect(try fixture.botTexts() == ["2"])
        await fixture.shutdown()
    }

    @Test(arguments: TestDatabase.kinds) func theInboxKeepsEachBotsMessagesInOrderUntilHandled(database: TestDatabase) async throws {
        let stores: [(String, any BotStore)] = [("memory", MemoryBotStore()), ("\(database)", try DatabaseBotStore(path: database.location("inbox")))]
        for (name, store) in stores {
            let messages = (1...3).map { number in
                ReceivedMessage(Message(id: "m\(number)", channel: .person("alice"), seq: Int64(number), clientMessageID: UUID(),
                                        sender: "alice", timestamp: Date(timeIntervalSince1970: 1_796_112_000),
                                        content: TextContent("text \(number)"), extensions: ["sender.name": "Alice"]))
            }
            try await store.receive(Array(messages[..<2]), bot: "support")
            // One received twice stays once, where it was.
            try await store.receive(Array(messages[1...]), bot: "support")
            try await store.receive([messages[0]], bot: "sales")
            #expect(try store.unhandled(bot: "support") == messages, "\(name)")
            #expect(try store.unhandled(bot: "support").first?.message(registry: .standard).senderName == "Alice", "\(name)")

            try store.handled("m2", bot: "support")
            let state = ConversationState(vars: ["name": "Bob"])
            try store.save(state, bot: "support", channel: "user:alice", handled: "m1")
            #expect(try store.unhandled(bot: "support").map(\.id) == ["m3"], "\(name)")
            #expect(try store.state(bot: "support", channel: "user:alice") == state, "\(name)")
            #expect(try store.unhandled(bot: "sales").map(\.id) == ["m1"], "\(name)")
        }
    }
}

/// The bot's transport while the server refuses its sends (rate limited for a minute); counts
/// the refusals.
final class LimitedTransport: ForwardingTransport {
    let base: any Transport
    private let count = Atomic<Int>(0)

    init(base: any Transport) { self.base = base }

    var refused: Int { count.load(ordering: .relaxed) }

    func send(_ message: OutgoingEnvelope) async throws -> SendReceipt {
        count.add(1, ordering: .relaxed)
        throw ParleyError(.rateLimited, "slow down", retryAfter: .seconds(60))
    }

    func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] {
        await sendEachInOrder(messages)
    }
}
