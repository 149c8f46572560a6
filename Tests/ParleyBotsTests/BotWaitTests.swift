import Foundation
import ParleyBots
import ParleyCore
import Testing
import ParleyTesting

/// `wait`: the rest of a plan is kept in the engine store, so a restart neither loses it nor
/// runs it twice, and an `ask` after a wait times out counting from when it is asked.
@Suite struct BotWaitTests {
    static let yaml = """
        id: support
        commands:
          later:
            do:
              - reply: "soon"
              - wait: 5m
              - reply: "later"
                quote: true
              - react: "👍"
              - broadcast: { to: ["user:bob"], send: { text: "news for {{recipient.id}}" } }
              - wait: 1m
              - reply: "last"
          slow:
            do:
              - goto: slow.name
          escalate:
            do:
              - reply: "An agent will call you back."
              - wait: 5m
              - handoff: { queue: agents, note: "call back" }
        flows:
          slow:
            name:
              do:
                - reply: "One moment"
                - wait: 5m
                - reply: "Your name?"
              ask:
                save: name
                timeout: 2m
                on_timeout: [ { reply: "Too slow." } ]
              next: done
            done:
              reply: "Hi {{vars.name}}"
        """

    @Test(arguments: TestDatabase.kinds) func theRestOfAPlanAfterAWaitSurvivesARestart(database: TestDatabase) async throws {
        let path = database.location("engine-wait")
        let fixture = try BotFixture(yaml: Self.yaml)
        try await fixture.start(store: DatabaseBotStore(path: path))
        let trigger = try await fixture.say("/later")
        #expect(try fixture.botTexts() == ["soon"])
        try await fixture.runningHost.stop()

        // The wait ends while no host runs: the next one runs the rest at once, quoting and
        // reacting to the message that started it.
        await fixture.clock.advance(by: .seconds(300))
        try await fixture.start(store: DatabaseBotStore(path: path))
        try await fixture.idle()
        let resumed = try fixture.newMessages().filter { $0.sender == "support" }
        #expect(resumed.map(\.text) == ["later"])
        #expect(resumed.first?.replyTo?.messageID == trigger.id)
        #expect(try fixture.stored(trigger.id)?.reactions == [ReactionSummary(emoji: "👍", users: ["support"])])
        try await fixture.runningHost.stop()

        // The second wait was stored too; once it has run, nothing is left to run again.
        try await fixture.start(store: DatabaseBotStore(path: path))
        try await fixture.advance(.seconds(59))
        #expect(try fixture.botTexts() == [])
        try await fixture.advance(.seconds(1))
        #expect(try fixture.botTexts() == ["last"])
        try await fixture.runningHost.stop()
        try await fixture.start(store: DatabaseBotStore(path: path))
        try await fixture.advance(.seconds(3600))
        #expect(try fixture.botTexts() == [])
        #expect(try DatabaseBotStore(path: path).statesWithTimers(bot: "support").isEmpty)
        await fixture.shutdown()
    }

    @Test(arguments: TestDatabase.kinds) func aDelayedPlanRunAgainAfterACrashSendsNothingTwice(database: TestDatabase) async throws {
        let path = database.location("engine-wait")
        let fixture = try BotFixture(yaml: Self.yaml)
        try await fixture.start(store: DatabaseBotStore(path: path))
        try await fixture.say("/later")
        #expect(try fixture.botTexts() == ["soon"])
        try await fixture.runningHost.stop()
        let store = try DatabaseBotStore(path: path)
        let waiting = try #require(try store.state(bot: "support", channel: "user:alice"))
        #expect(waiting.nextTimer == fixture.clock.now().addingTimeInterval(300))

        await fixture.clock.advance(by: .seconds(300))
        try await fixture.start(store: DatabaseBotStore(path: path))
        try await fixture.idle()
        #expect(try fixture.botTexts() == ["later"])
        try await fixture.runningHost.stop()

        // A crash right after the send, before the progress was written: the state on disk is
        // the one from before. Running the plan again repeats the send under the same client
        // message number, which the hub recognises.
        try store.save(waiting, bot: "support", channel: "user:alice")
        try await fixture.start(store: DatabaseBotStore(path: path))
        try await fixture.idle()
        try await fixture.advance(.seconds(60))
        #expect(try fixture.botTexts() == ["last"])
        // The broadcast's send to bob (no durable broadcast service here) is recognised too.
        #expect(try fixture.botTexts(in: .person("support"), seenBy: "bob") == ["news for bob"])
        await fixture.shutdown()
    }

    @Test(arguments: TestDatabase.kinds) func aHandoffRunAgainAfterACrashOpensOneTicket(database: TestDatabase) async throws {
        let path = database.location("engine-wait")
        let fixture = try BotFixture(yaml: Self.yaml)
        try await fixture.createAgents()
        try await fixture.start(store: DatabaseBotStore(path: path))
        try await fixture.say("/escalate")
        try await fixture.runningHost.stop()
        let store = try DatabaseBotStore(path: path)
        let waiting = try #require(try store.state(bot: "support", channel: "user:alice"))

        await fixture.clock.advance(by: .seconds(300))
        try await fixture.start(store: DatabaseBotStore(path: path))
        try await fixture.idle()
        try await fixture.runningHost.stop()
        // A crash right after the ticket was opened and posted, before the progress was
        // written: the plan runs the hand-off again.
        try store.save(waiting, bot: "support", channel: "user:alice")
        try await fixture.start(store: DatabaseBotStore(path: path))
        try await fixture.idle()

        let cards = try fixture.newMessages(in: .group("agents"), seenBy: "carol").compactMap { $0.content as? TicketContent }
        #expect(cards.map(\.number) == [1])
        #expect(try store.tickets(queue: "agents", number: 2) == [])
        // The conversation is paused under that ticket: alice's words go to the agents.
        try await fixture.say("are you there?")
        #expect(try fixture.botTexts(in: .group("agents"), seenBy: "carol") == ["#1 Alice: are you there?"])
        await fixture.shutdown()
    }

    @Test func anAskAfterAWaitTimesOutCountingFromTheAsk() async throws {
        let fixture = try BotFixture(yaml: Self.yaml)
        try await fixture.start()
        try await fixture.say("/slow")
        #expect(try fixture.botTexts() == ["One moment"])
        try await fixture.advance(.seconds(300))
        #expect(try fixture.botTexts() == ["Your name?"])
        // Two minutes from the question, not from the command.
        try await fixture.advance(.seconds(119))
        #expect(try fixture.botTexts() == [])
        try await fixture.advance(.seconds(1))
        #expect(try fixture.botTexts() == ["Too slow."])
        await fixture.shutdown()
    }

    @Test func aClientMessageNumberNamesOneMessageOnly() async throws {
        let fixture = try BotFixture(yaml: Self.yaml)
        let client = try await fixture.client("alice")
        let named = SendOptions(clientMessageID: UUID())
        let results = await client.batchSend([TextContent("a"), TextContent("b")], to: [.person("support")], options: named)
        #expect(results.allSatisfy { if case .failure(let error) = $0 { error.code == .invalidArgument } else { false } })
        // One message under a chosen number, sent twice: the server shows it once.
        let first = try await client.send(TextContent("once"), to: .person("support"), options: named)
        let again = try await client.send(TextContent("once"), to: .person("support"), options: named)
        #expect(first.id == again.id)
        #expect(try fixture.hub.messages(in: .person("support"), seenBy: "alice").filter { $0.id == first.id }.count == 1)
        await fixture.shutdown()
    }
}
