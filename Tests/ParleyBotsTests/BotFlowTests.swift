import Foundation
import ParleyBots
import ParleyCore
import Testing
import ParleyTesting

/// Triggers, fallback, and flows: `ask` with `save`, `match`, `retry`, `timeout`, `next`,
/// and a restart in the middle of a flow.
@Suite struct BotFlowTests {
    @Test func triggersRunAfterCommandsFirstMatchWins() async throws {
        let fixture = try BotFixture()
        try await fixture.start()
        let thanks = try await fixture.say("Thanks a lot")
        #expect(try fixture.botTexts() == [])
        #expect(try fixture.stored(thanks.id)?.reactions == [ReactionSummary(emoji: "❤️", users: ["support"])])
        try await fixture.say("where is order 42 and thanks")
        try await fixture.say("What are your OPENING HOURS?")
        try await fixture.say("my order 77")
        #expect(try fixture.botTexts() == ["We are open 9–18.", "Order 77?"])
        await fixture.shutdown()
    }

    @Test func aCommandWinsOverATriggerThatMatchesTheSameMessage() async throws {
        let fixture = try BotFixture()
        try await fixture.start()
        // `/echo many thanks` is the echo command and also matches the thanks trigger.
        let message = try await fixture.say("/echo many thanks")
        #expect(try fixture.botTexts() == ["many thanks"])
        #expect(try fixture.stored(message.id)?.reactions == [])
        await fixture.shutdown()
    }

    @Test func unknownCommandsAndOtherTextGetTheFallback() async throws {
        let fixture = try BotFixture()
        try await fixture.start()
        try await fixture.say("/nosuch")
        try await fixture.say("hm")
        #expect(try fixture.botTexts() == Array(repeating: "Sorry, I didn't get that. Try /help.", count: 2))
        await fixture.shutdown()
    }

    @Test func askTakesTheAnswerFirstRetriesAndMovesOn() async throws {
        let fixture = try BotFixture()
        try await fixture.createAgents()
        try await fixture.start()
        try await fixture.say("/refund")
        _ = try fixture.botTexts()
        // A flow waiting on `ask` gets the message before commands.
        try await fixture.say("/help")
        try await fixture.say("12345")
        #expect(try fixture.botTexts() == ["Please send the 6-digit order number.", "Please send the 6-digit order number."])
        try await fixture.say("123456")
        let card = try #require(try fixture.newMessages().last?.content as? CardContent)
        #expect(card.definition.name == "order")
        #expect(card.values == ["order_id": "123456", "status": "refund requested"])
        await fixture.shutdown()
    }

    @Test func aWrongAnswerRestartsTheTimeoutAndTheOldTimerDoesNothing() async throws {
        let fixture = try BotFixture()
        try await fixture.start()
        try await fixture.say("/refund")
        _ = try fixture.botTexts()
        try await fixture.advance(.seconds(300))
        try await fixture.say("12")
        #expect(try fixture.botTexts() == ["Please send the 6-digit order number."])
        // The first deadline (600 s after the question) passes: its timer is stale now.
        try await fixture.advance(.seconds(300))
        #expect(try fixture.botTexts() == [])
        try await fixture.advance(.seconds(299))
        #expect(try fixture.botTexts() == [])
        // Ten minutes after the wrong answer, the question times out.
        try await fixture.advance(.seconds(1))
        #expect(try fixture.botTexts() == ["I'll close this for now."])
        await fixture.shutdown()
    }

    @Test func askTimesOutOnTheVirtualClock() async throws {
        let fixture = try BotFixture()
        try await fixture.start()
        try await fixture.say("/refund")
        _ = try fixture.botTexts()
        try await fixture.advance(.seconds(599))
        #expect(try fixture.botTexts() == [])
        try await fixture.advance(.seconds(1))
        #expect(try fixture.botTexts() == ["I'll close this for now."])
        // Out of the flow: commands work again.
        try await fixture.say("/echo back")
        #expect(try fixture.botTexts() == ["back"])
        await fixture.shutdown()
    }

    @Test(arguments: TestDatabase.kinds) func aRestartResumesMidFlowFromTheStore(database: TestDatabase) async throws {
        let path = database.location("engine")
        let fixture = try BotFixture()
        try await fixture.createAgents()
        try await fixture.start(store: DatabaseBotStore(path: path))
        try await fixture.say("/refund")
        _ = try fixture.botTexts()
        try await fixture.runningHost.stop()

        // A new host on the same database file: the conversation still waits on `ask`.
        try await fixture.start(store: DatabaseBotStore(path: path))
        try await fixture.say("654321")
        let messages = try fixture.newMessages().filter { $0.sender == "support" }
        #expect((messages.first?.content as? CardContent)?.values["order_id"] == "654321")
        await fixture.shutdown()
    }

    @Test(arguments: TestDatabase.kinds) func aRestartReArmsThePendingTimeout(database: TestDatabase) async throws {
        let path = database.location("engine")
        let fixture = try BotFixture()
        try await fixture.start(store: DatabaseBotStore(path: path))
        try await fixture.say("/refund")
        _ = try fixture.botTexts()
        try await fixture.runningHost.stop()
        try await fixture.start(store: DatabaseBotStore(path: path))
        try await fixture.advance(.seconds(600))
        #expect(try fixture.botTexts() == ["I'll close this for now."])
        await fixture.shutdown()
    }
}
