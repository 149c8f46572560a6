import Testing
import YAMLCoding
import ParleyBots

/// `Action.Key` is the one list of action keys: each is read as its action written directly
/// in a command and as an item of a list, passes validation and compiles, and messages that
/// name the actions list them all.
@Suite struct ActionKeyListTests {
    /// A valid value for each key; a new key fails to compile here until it has one.
    static func sample(_ key: Action.Key) -> String {
        switch key {
        case .reply: return "hello"
        case .send: return "{ text: hi }"
        case .react, .unreact: return "\"👍\""
        case .broadcast: return "{ to: [\"user:alice\"], send: { text: hi } }"
        case .goto: return "end"
        case .set: return "{ topic: billing }"
        case .handoff: return "{ queue: support }"
        case .wait: return "1s"
        }
    }

    @Test(arguments: Action.Key.allCases)
    func everyActionKeyIsReadValidatedAndCompiled(key: Action.Key) throws {
        let value = Self.sample(key)
        let yaml = "commands:\n  go: { \(key.rawValue): \(value) }\nfallback:\n  - { \(key.rawValue): \(value) }\n"
        #expect(BotCheck.errors(yaml) == "")
        let bot = try BotCheck.decode(yaml)
        #expect(bot.commands["go"]?.actions.map(\.action.key) == [key])
        #expect(bot.fallback?.value.items.map(\.action.key) == [key])
        #expect(throws: Never.self) { try CompiledBot(id: "t", definition: bot, file: "bots/t.yaml") }
    }

    @Test func anItemWithoutAnActionNamesEveryKey() {
        let names = Action.Key.allCases.map(\.rawValue).joined(separator: ", ")
        #expect(BotCheck.firstError("fallback:\n  - { }\n") == "bots/t.yaml:2:5: error: expected an action (\(names))")
    }
}
