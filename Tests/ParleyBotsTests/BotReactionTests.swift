import Foundation
import ParleyBots
import ParleyCore
import Synchronization
import Testing
import ParleyTesting

/// A user's reaction to one of the bot's messages is an input the engine routes: a waiting
/// `ask` that lists the emoji takes it, else the first `reaction:` trigger with it, else
/// nothing. Reactions to other messages, taken back, or by the bot itself are not routed.
@Suite struct BotReactionTests {
    static let yaml = """
        id: support
        commands:
          hi:
            reply: "Hello!"
          rate:
            goto: survey.rate
        triggers:
          - contains: thanks
            reply: "You're welcome."
          - reaction: "👍"
            reply: "Thanks for the {{message.text}}, {{user.name}}!"
          - reaction: "❤️"
            reply: "Love you too."
        flows:
          survey:
            rate:
              reply: "How did we do? Send 1-5 or react 👍/👎."
              ask: { save: score, match: "^[1-5]$", reactions: ["👍", "👎"], timeout: 1h }
              next: thanks
            thanks:
              reply: "Score: {{vars.score}}"
        """

    /// `user` reacts with `emoji` to the bot's last message in their direct conversation (or
    /// to `message` when given), through a connection of their own; then the bot goes idle.
    @discardableResult
    static func react(_ emoji: String, as user: String = "alice", on message: String? = nil, added: Bool = true,
                      in fixture: BotFixture) async throws -> String {
        let target: String
        if let message {
            target = message
        } else {
            let last = try fixture.hub.messages(in: .person(fixture.bot.id), seenBy: user).last { $0.sender == fixture.bot.id }
            target = try #require(last?.id, "the bot sent \(user) nothing")
        }
        try await fixture.hub.connect(user: user).setReaction(emoji, on: target, in: .person(fixture.bot.id), added: added)
        try await fixture.idle()
        return target
    }

    @Test func aReactionTriggerAnswersAReactionToTheBotsMessageWithTheEmojiAsTheMessageText() async throws {
        let fixture = try BotFixture(yaml: Self.yaml)
        try await fixture.start()
        try await fixture.say("/hi")
        #expect(try fixture.botTexts() == ["Hello!"])
        try await Self.react("👍", in: fixture)
        #expect(try fixture.botTexts() == ["Thanks for the 👍, Alice!"])
        // Without the presentation selector it is the same emoji.
        try await Self.react("❤", in: fixture)
        #expect(try fixture.botTexts() == ["Love you too."])
        // No trigger, no ask: nothing (reactions have no fallback).
        try await Self.react("😀", in: fixture)
        #expect(try fixture.botTexts() == [])
        await fixture.shutdown()
    }

    @Test func reactionsToOtherMessagesAndTakenBackAreNotRouted() async throws {
        let fixture = try BotFixture(yaml: Self.yaml)
        try await fixture.start()
        let own = try await fixture.say("thanks")
        #expect(try fixture.botTexts() == ["You're welcome."])
        // Alice's reaction to her own message: not the bot's.
        try await Self.react("👍", on: own.id, in: fixture)
        #expect(try fixture.botTexts() == [])
        // Taking a reaction back is no input; adding it again is a new one.
        let answer = try await Self.react("👍", in: fixture)
        #expect(try fixture.botTexts() == ["Thanks for the 👍, Alice!"])
        try await Self.react("👍", on: answer, added: false, in: fixture)
        #expect(try fixture.botTexts() == [])
        try await Self.react("👍", on: answer, in: fixture)
        #expect(try fixture.botTexts() == ["Thanks for the 👍, Alice!"])
        await fixture.shutdown()
    }

    @Test func aReactionTheAskListsAnswersItAndOthersLeaveItWaiting() async throws {
        let fixture = try BotFixture(yaml: Self.yaml)
        try await fixture.start()
        try await fixture.say("/rate")
        #expect(try fixture.botTexts() == ["How did we do? Send 1-5 or react 👍/👎."])
        // Not listed by the ask: the trigger answers, the ask still waits.
        try await Self.react("❤️", in: fixture)
        #expect(try fixture.botTexts() == ["Love you too."])
        // Listed (and a trigger's too): the ask takes it first, bypassing `match`.
        try await Self.react("👍", in: fixture)
        #expect(try fixture.botTexts() == ["Score: 👍"])
        // The flow is over: now 👍 is the trigger's again, and text goes to the commands.
        try await Self.react("👍", in: fixture)
        #expect(try fixture.botTexts() == ["Thanks for the 👍, Alice!"])
        try await fixture.say("3")
        #expect(try fixture.botTexts() == [])
        await fixture.shutdown()
    }

    @Test(arguments: TestDatabase.kinds) func aReactionHandledAgainAfterACrashSendsNothingTwiceAndMovesTheFlowOnce(database: TestDatabase) async throws {
        let path = database.location("engine-reaction")
        let fixture = try BotFixture(yaml: Self.yaml)
        // Reaction events with ids, as a Matrix server gives them: the inbox is keyed by them.
        try await fixture.start(store: DatabaseBotStore(path: path)) { $0.transport = ReactionIDTransport(base: $0.transport) }
        try await fixture.say("/rate")
        #expect(try fixture.botTexts() == ["How did we do? Send 1-5 or react 👍/👎."])
        let store = try DatabaseBotStore(path: path)
        let waiting = try #require(try store.state(bot: "support", channel: "user:alice"))
        let question = try await Self.react("👎", in: fixture)
        #expect(try fixture.botTexts() == ["Score: 👎"])
        let done = try store.state(bot: "support", channel: "user:alice")
        #expect(done?.waiting == nil && done?.vars["score"] == "👎")
        #expect(try store.unhandled(bot: "support").isEmpty)
        try await fixture.runningHost.stop()

        // A crash right after "Score: 👎" went out, before the state and the inbox were
        // written: on disk the flow still waits and the reaction is still unhandled.
        try store.save(waiting, bot: "support", channel: "user:alice")
        try await store.receive([ReceivedMessage(reaction: "r-1", channel: .person("alice"), sender: "alice", messageID: question,
                                           emoji: "👎", timestamp: fixture.clock.now())], bot: "support")
        try await fixture.start(store: DatabaseBotStore(path: path))
        try await fixture.idle()
        // Handled again under the same client message number: the hub shows it once.
        #expect(try fixture.botTexts() == [])
        #expect(try store.state(bot: "support", channel: "user:alice") == done)
        #expect(try store.unhandled(bot: "support").isEmpty)
        await fixture.shutdown()
    }

    @Test(arguments: TestDatabase.kinds) func aReactionWaitingForItsAnswerAtAStopIsAnsweredOnceAfterTheRestart(database: TestDatabase) async throws {
        let store = database.location("engine-reaction")
        let fixture = try BotFixture(yaml: Self.yaml)
        let refusing = Mutex<RefusingTransport?>(nil)
        try await fixture.start(store: DatabaseBotStore(path: store), options: BotHostOptions(stopGrace: .milliseconds(300))) { connection in
            let transport = RefusingTransport(base: connection.transport)
            refusing.withLock { $0 = transport }
            connection.transport = transport
        }
        let transport = try #require(refusing.withLock { $0 })
        try await fixture.say("/hi")
        #expect(try fixture.botTexts() == ["Hello!"])
        // From now on the server refuses the bot's sends: the answer to the reaction waits in
        // the (memory) outbox, the reaction in the inbox.
        transport.refuse()
        let hello = try #require(try fixture.hub.messages(in: .person("support"), seenBy: "alice").last?.id)
        try await fixture.hub.connect(user: "alice").setReaction("👍", on: hello, in: .person("support"), added: true)
        try await withTimeout("the answer refused") { await transport.firstRefusal() }
        try await fixture.runningHost.stop()
        #expect(try fixture.botTexts() == [])

        try await fixture.start(store: DatabaseBotStore(path: store))
        try await fixture.idle()
        #expect(try fixture.botTexts() == ["Thanks for the 👍, Alice!"])
        #expect(try DatabaseBotStore(path: store).unhandled(bot: "support").isEmpty)
        await fixture.shutdown()
    }

    @Test(arguments: TestDatabase.kinds) func aReactionReceivedBeforeAStopIsAnsweredOnceAfterTheRestart(database: TestDatabase) async throws {
        let store = database.location("engine-reaction")
        let fixture = try BotFixture(yaml: Self.yaml)
        try await fixture.start(store: DatabaseBotStore(path: store))
        try await fixture.say("/hi")
        #expect(try fixture.botTexts() == ["Hello!"])
        try await fixture.runningHost.stop()
        // The bot is not connected now (the hub's reaction events are live only): the entry a
        // bot that died with the reaction queued would have left.
        let hello = try #require(try fixture.hub.messages(in: .person("support"), seenBy: "alice").last?.id)
        try await DatabaseBotStore(path: store).receive([ReceivedMessage(reaction: "reaction-1", channel: .person("alice"), sender: "alice",
                                                                 messageID: hello, emoji: "👍", timestamp: fixture.clock.now())],
                                                bot: "support")
        try await fixture.start(store: DatabaseBotStore(path: store))
        try await fixture.idle()
        #expect(try fixture.botTexts() == ["Thanks for the 👍, Alice!"])
        #expect(try DatabaseBotStore(path: store).unhandled(bot: "support").isEmpty)
        await fixture.shutdown()
    }
}

/// Gives each reaction event an id (`r-1`, `r-2`, …), as a Matrix server does.
final class ReactionIDTransport: ForwardingTransport {
    let base: any Transport
    private let count = Atomic<Int>(0)

    init(base: any Transport) { self.base = base }

    func connect() async throws -> AsyncStream<TransportEvent> {
        let events = try await base.connect()
        let (stream, continuation) = AsyncStream<TransportEvent>.makeStream()
        Task { [self] in
            for await event in events {
                guard case .reaction(var reaction) = event else {
                    continuation.yield(event)
                    continue
                }
                reaction.id = "r-\(count.add(1, ordering: .relaxed).newValue)"
                continuation.yield(.reaction(reaction))
            }
            continuation.finish()
        }
        return stream
    }

    func send(_ message: OutgoingEnvelope) async throws -> SendReceipt { try await base.send(message) }

    func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] {
        await base.sendBatch(messages)
    }
}

/// Passes sends on until `refuse()`; then answers each with a rate limit of a minute (of the
/// virtual clock, which the test does not move), and tells `firstRefusal()` of the first.
final class RefusingTransport: ForwardingTransport {
    let base: any Transport
    private let refusing = Atomic<Bool>(false)
    private let refusals: AsyncStream<Void>
    private let refused: AsyncStream<Void>.Continuation

    init(base: any Transport) {
        self.base = base
        (refusals, refused) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    func refuse() { refusing.store(true, ordering: .sequentiallyConsistent) }

    /// Returns once a send was refused.
    func firstRefusal() async {
        for await _ in refusals { return }
    }

    func send(_ message: OutgoingEnvelope) async throws -> SendReceipt {
        guard refusing.load(ordering: .sequentiallyConsistent) else { return try await base.send(message) }
        refused.yield()
        throw ParleyError(.rateLimited, "slow down", retryAfter: .seconds(60))
    }

    func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] {
        await sendEachInOrder(messages)
    }
}
