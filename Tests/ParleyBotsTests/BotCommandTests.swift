import Foundation
import ParleyBots
import ParleyCore
import Testing
import ParleyTesting

/// Commands, usage lines, `{{help}}`, cards and every action, through the embedded hub.
@Suite struct BotCommandTests {
    @Test func helpListsEveryCommandWithArgsAndDescription() async throws {
        let fixture = try BotFixture()
        try await fixture.start()
        try await fixture.say("/help")
        let texts = try fixture.botTexts()
        try #require(texts.count == 1)
        let lines = texts[0].split(separator: "\n").map(String.init)
        #expect(lines.first == "/help — Show what I can do")
        #expect(lines.contains("/card <user> — Send someone's business card"))
        #expect(lines.contains("/note <to> <text>"))
        await fixture.shutdown()
    }

    @Test(arguments: [
        ("/card", "Usage: /card <user>"),
        ("/note bob", "Usage: /note <to> <text>"),
        ("/echo", "Usage: /echo <text>"),
        ("/echo    ", "Usage: /echo <text>"),
    ])
    func missingArgsAnswerWithTheUsageLine(input: String, usage: String) async throws {
        let fixture = try BotFixture()
        try await fixture.start()
        try await fixture.say(input)
        #expect(try fixture.botTexts() == [usage])
        await fixture.shutdown()
    }

    @Test func theLastArgTakesTheRestOfTheLineVerbatim() async throws {
        let fixture = try BotFixture()
        try await fixture.start()
        try await fixture.say("/echo   two  spaces {{help}} stay ")
        // Inserted as text: `{{help}}` typed by a user is never expanded.
        #expect(try fixture.botTexts() == ["two  spaces {{help}} stay"])
        try await fixture.say("/note bob see you  at 5")
        #expect(try fixture.botTexts(in: .person("support"), seenBy: "bob") == ["Alice says: see you  at 5"])
        #expect(try fixture.botTexts() == [])
        await fixture.shutdown()
    }

    @Test func aliasesRunTheirCommandAndLinksAreCards() async throws {
        let fixture = try BotFixture()
        try await fixture.start()
        try await fixture.say("/manual")
        let messages = try fixture.newMessages().filter { $0.sender == "support" }
        let link = try #require(messages.first?.content as? LinkContent)
        #expect(link.url == "https://example.com/docs")
        #expect(link.text == "Parley docs")
        await fixture.shutdown()
    }

    @Test func vcardIsFilledFromTheProfile() async throws {
        let fixture = try BotFixture()
        try await fixture.start()
        try await fixture.say("/card bob")
        let card = try #require(try fixture.newMessages().last?.content as? VCardContent)
        #expect(card == VCardContent(user: "bob", name: "Bob Stone", phone: "+49 30 1234567"))
        await fixture.shutdown()
    }

    @Test func greetingCardCarriesTextAndSummary() async throws {
        let fixture = try BotFixture()
        try await fixture.start()
        try await fixture.say("/hello")
        let card = try #require(try fixture.newMessages().last?.content as? GreetingContent)
        #expect(card == GreetingContent(text: "Hello Alice", summary: "hi"))
        await fixture.shutdown()
    }

    @Test func reactQuoteAndGotoRunInOrder() async throws {
        let fixture = try BotFixture()
        try await fixture.start()
        let sent = try await fixture.say("/refund")
        let messages = try fixture.newMessages().filter { $0.sender == "support" }
        #expect(messages.map { $0.text ?? "" } == ["Let's sort this out.", "What is your order number?"])
        #expect(messages.first?.replyTo?.messageID == sent.id)
        #expect(messages.last?.replyTo == nil)
        let stored = try #require(try fixture.stored(sent.id))
        #expect(stored.reactions == [ReactionSummary(emoji: "👀", users: ["support"])])
        await fixture.shutdown()
    }

    @Test func unreactRemovesTheBotsReaction() async throws {
        let fixture = try BotFixture()
        try await fixture.start()
        // Alice's client hears of the reaction being added, then removed: both happened.
        let events = try await fixture.client("alice").events()
        let sent = try await fixture.say("/unlike")
        #expect(try fixture.stored(sent.id)?.reactions == [])
        let reactions = try await withTimeout {
            var seen: [String] = []
            // Bounded: the stream ends when the client closes; two reaction events are awaited.
            for await event in events {
                guard case .reaction(let reaction, _) = event, reaction.messageID == sent.id else { continue }
                seen.append("\(reaction.added ? "+" : "-")\(reaction.emoji) \(reaction.user)")
                if seen.count == 2 { break }
            }
            return seen
        }
        #expect(reactions == ["+👍 support", "-👍 support"])
        await fixture.shutdown()
    }

    @Test func setVariablesPersistInTheConversation() async throws {
        let fixture = try BotFixture()
        try await fixture.start()
        try await fixture.say("/remember teal blue")
        try await fixture.say("/color")
        #expect(try fixture.botTexts() == ["Saved teal blue", "Your color is teal blue"])
        try await fixture.say("/color", as: "bob")
        #expect(try fixture.botTexts(seenBy: "bob") == ["Your color is "])
        await fixture.shutdown()
    }

    @Test func waitResumesTheRestOfThePlanOnTheClock() async throws {
        let fixture = try BotFixture()
        try await fixture.start()
        try await fixture.say("/later")
        #expect(try fixture.botTexts() == ["one"])
        try await fixture.advance(.seconds(9))
        #expect(try fixture.botTexts() == [])
        try await fixture.advance(.seconds(1))
        #expect(try fixture.botTexts() == ["two"])
        await fixture.shutdown()
    }
}
