import ParleyCore
import Testing
import YAMLCoding
import ParleyBots

/// Bot validation knows the built-in cards from `BuiltInCard.all` alone: a `send:` of each with
/// every field validates and compiles, their names are taken, and an unknown card's message
/// lists them.
@Suite struct BuiltInCardValidationTests {
    @Test(arguments: BuiltInCard.all.map(\.name))
    func aSendOfEveryBuiltInCardWithEveryFieldValidatesAndCompiles(name: String) throws {
        let card = try #require(BuiltInCard.named[name])
        let fields = card.fields.map { "\($0): \"7\"" }.joined(separator: ", ")
        let yaml = "fallback:\n  - send: { card: \(name), \(fields) }\n"
        #expect(BotCheck.errors(yaml) == "")
        let bot = try BotCheck.decode(yaml)
        #expect(bot.fields(ofCard: name) == card.fields)
        #expect(throws: Never.self) { try CompiledBot(id: "t", definition: bot, file: "bots/t.yaml") }
    }

    @Test(arguments: BuiltInCard.all.map(\.name))
    func aDeclaredCardMayNotTakeABuiltInName(name: String) {
        let names = BuiltInCard.all.map(\.name).joined(separator: ", ")
        let yaml = "cards:\n  \(name): { type: 1001, fields: [a], fallback: \"{{a}}\" }\nfallback: [ { reply: hi } ]\n"
        #expect(BotCheck.firstError(yaml)
            == "bots/t.yaml:2:3: error: card name '\(name)' is a built-in card: choose another name (built-ins: \(names))")
    }

    @Test func anUnknownCardListsTheBuiltInsThenTheBotsOwn() {
        let names = BuiltInCard.all.map(\.name).joined(separator: ", ")
        let yaml = "cards:\n  order: { type: 1001, fields: [a], fallback: \"{{a}}\" }\nfallback:\n  - send: { card: nope }\n"
        #expect(BotCheck.firstError(yaml) == "bots/t.yaml:4:19: error: unknown card 'nope': expected one of \(names), order")
    }
}
