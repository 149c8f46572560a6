import Foundation
import ParleyBots
import ParleyCore
import Testing

/// A bot that meets many users keeps at most `conversationLimit` of them in memory, so a
/// long-running bot's memory stays bounded — and a conversation it dropped carries on from
/// the store, not from scratch.
@Suite struct BotMemoryBoundsTests {
    static let yaml = """
        id: support
        greeting:
          - send: { text: "Hello {{user.name}}" }
        commands:
          remember:
            args: [value]
            do:
              - set: { color: "{{args.value}}" }
              - reply: "Saved {{vars.color}}"
          color:
            reply: "Your color is {{vars.color}}"
        """
    static let strangers = (0..<12).map { Profile(id: "u\($0)", name: "User \($0)") }

    @Test func manyUsersLeaveAtMostTheLimitInMemoryAndADroppedConversationCarriesOn() async throws {
        let fixture = try BotFixture(yaml: Self.yaml, users: BotFixture.people + Self.strangers)
        let host = try await fixture.start(options: BotHostOptions(conversationLimit: 4))
        try await fixture.say("/remember blue")
        #expect(try fixture.botTexts() == ["Hello Alice", "Saved blue"])
        for stranger in Self.strangers {
            try await fixture.say("/color", as: stranger.id)
            #expect(try fixture.botTexts(seenBy: stranger.id) == ["Hello \(stranger.name ?? "")", "Your color is "])
        }
        // Thirteen users met; four kept, plus up to an eighth (at least one) before a sweep.
        let counts = try #require(await host.memoryCounts(of: "support"))
        #expect(counts.conversations <= 5)
        #expect(counts.greetings <= 4)
        #expect(counts.profiles <= 4)
        #expect(counts.clientConversations <= 5)
        // Alice's conversation was the least recently used: gone from memory, not from the
        // store — her saved color is still hers, and she is not greeted a second time.
        try await fixture.say("/color")
        #expect(try fixture.botTexts() == ["Your color is blue"])
        await fixture.shutdown()
    }

    @Test func withinTheLimitNothingIsDropped() async throws {
        let fixture = try BotFixture(yaml: Self.yaml, users: BotFixture.people + Self.strangers)
        let host = try await fixture.start(options: BotHostOptions(conversationLimit: 100))
        for stranger in Self.strangers { try await fixture.say("/color", as: stranger.id) }
        let counts = try #require(await host.memoryCounts(of: "support"))
        let kept: [Int] = [counts.conversations, counts.greetings, counts.profiles, counts.clientConversations]
        #expect(kept == [12, 12, 12, 12])
        await fixture.shutdown()
    }
}
