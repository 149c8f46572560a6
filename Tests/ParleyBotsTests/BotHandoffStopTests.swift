import Foundation
import ParleyBots
import ParleyCore
import Testing
import ParleyTesting

/// STOP always works, also while agents have the conversation: the opt-out is kept and
/// confirmed, and the agents still see the line.
@Suite struct BotHandoffStopTests {
    @Test(arguments: TestDatabase.kinds) func stopDuringAHandOffOptsOutAndStillReachesTheAgents(database: TestDatabase) async throws {
        let yaml = """
            id: support
            name: Support
            commands:
              human:
                handoff: { queue: agents, note: "Help" }
            audiences:
              news:
                subscribe: [subscribe]
                unsubscribe: [stop]
                on_subscribe: [ { reply: "You're in." } ]
                on_unsubscribe: [ { reply: "Done, no more news." } ]
            """
        let store = try BroadcastStore(path: database.location("broadcasts"))
        let fixture = try BotFixture(yaml: yaml)
        try await fixture.createAgents()
        try await fixture.start(store: MemoryBotStore(), options: BotHostOptions(broadcasts: BroadcastService(store: store)))
        try await fixture.say("/subscribe")
        #expect(try store.membership(bot: "support", audience: "news", target: "user:alice") == true)
        try await fixture.say("/human")
        _ = try fixture.botTexts()
        _ = try fixture.newMessages(in: BotHandoffAccessTests.agents, seenBy: "carol")

        try await fixture.say("STOP")
        #expect(try store.membership(bot: "support", audience: "news", target: "user:alice") == false)
        let confirmation = try fixture.botTexts()
        // The confirmation, then the queue's usual word to a customer no agent has taken yet.
        #expect(confirmation == ["Done, no more news.", "You are number 1 in the queue; an agent will be with you soon."],
                "\(confirmation) \(fixture.log)")
        #expect(try fixture.botTexts(in: BotHandoffAccessTests.agents, seenBy: "carol") == ["#1 Alice: STOP"])
        // The conversation stays with the agents.
        try await fixture.say("still there?")
        #expect(try fixture.botTexts(in: BotHandoffAccessTests.agents, seenBy: "carol") == ["#1 Alice: still there?"])
        await fixture.shutdown()
    }
}
