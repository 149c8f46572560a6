import Foundation
import Testing
import ParleyCore
import YAMLCoding
@testable import ParleyFlowTest

@Suite struct ExpectationMatcherTests {
    /// Decodes `expect: …` as a test file would, so the matcher sees real decoded steps.
    static func expectation(_ yaml: String) throws -> (ParleyFlowTest.Expectation, ExpectationMatcher) {
        let text = "bot: b\ntests:\n  - name: t\n    steps:\n      - expect: \(yaml)\n"
        let file = try YAMLDecoder().decode(TestFile.self, from: text, file: "t.test.yaml")
        guard case .expect(let expectation)? = file.tests.first?.steps.first?.kind else {
            throw YAMLErrors([YAMLError(file: "t", mark: Mark(line: 1, column: 1), message: "not an expect step")])
        }
        return (expectation, ExpectationMatcher(file: file))
    }

    static func message(_ payload: JSONValue, replyTo: String? = nil, lastUser: String? = nil) -> BotOutput {
        var output = BotOutput(channel: .person("alice"), kind: .message(payload: payload, messageID: "m1", replyTo: replyTo),
                               time: Date(timeIntervalSince1970: 0))
        output.lastUserMessageID = lastUser
        return output
    }

    static let pong = message(TextContent("pong").encoded())
    static let vcard = message(VCardContent(user: "bob", name: "Bob Stone", phone: "+49 30 1234567").encoded())
    static let heart = BotOutput(channel: .person("alice"), kind: .reaction(emoji: "❤️", messageID: "u1", added: true),
                                 time: Date(timeIntervalSince1970: 0))
    static let quoting = message(TextContent("Let's sort this out.").encoded(), replyTo: "u7", lastUser: "u7")
    static let quotingOlder = message(TextContent("Let's sort this out.").encoded(), replyTo: "u6", lastUser: "u7")

    struct Case: Sendable, CustomTestStringConvertible {
        var yaml: String
        var output: BotOutput
        var problems: [String]
        var testDescription: String { yaml }
    }

    static let cases: [Case] = [
        Case(yaml: "{ text: pong }", output: pong, problems: []),
        Case(yaml: "{ text: ping }", output: pong, problems: [#"text: expected "ping", got "pong""#]),
        Case(yaml: "{ contains: on }", output: pong, problems: []),
        Case(yaml: "{ contains: x }", output: pong, problems: [#"contains: expected the text to contain "x", got "pong""#]),
        Case(yaml: #"{ matches: "^p.n" }"#, output: pong, problems: []),
        Case(yaml: #"{ matches: "^P" }"#, output: pong, problems: [#"matches: expected the text to match /^P/, got "pong""#]),
        Case(yaml: "{ card: vcard }", output: vcard, problems: []),
        Case(yaml: "{ card: link }", output: vcard, problems: ["card: expected link, got the card vcard"]),
        Case(yaml: "{ card: vcard }", output: pong, problems: ["card: expected vcard, got plain text"]),
        Case(yaml: "{ card: vcard, fields: { name: Bob Stone } }", output: vcard, problems: []),
        Case(yaml: #"{ card: vcard, fields: { name: Bob Stone, phone: "+49 30 1234567", user: bob } }"#, output: vcard, problems: []),
        Case(yaml: "{ card: vcard, fields: { name: Bob } }", output: vcard, problems: [#"fields.name: expected "Bob", got "Bob Stone""#]),
        Case(yaml: "{ card: vcard, fields: { email: b@x } }", output: vcard, problems: [#"fields.email: expected "b@x", got no such field"#]),
        Case(yaml: #"{ reaction: "❤️" }"#, output: heart, problems: []),
        Case(yaml: #"{ reaction: "👀" }"#, output: heart, problems: ["reaction: expected 👀, got ❤️"]),
        Case(yaml: #"{ reaction: "❤️" }"#, output: pong, problems: ["expected the reaction ❤️, got a message"]),
        Case(yaml: "{ text: pong }", output: heart, problems: ["expected a message, got a reaction"]),
        Case(yaml: "{ quote: last }", output: quoting, problems: []),
        Case(yaml: "{ quote: last }", output: quotingOlder,
             problems: ["quote: expected the message to quote the user's last message, it quotes another one"]),
        Case(yaml: "{ quote: last }", output: pong,
             problems: ["quote: expected the message to quote the user's last message, it quotes nothing"]),
        // A card's `text` field is what text expectations read.
        Case(yaml: "{ card: greeting, text: Hi }", output: message(GreetingContent(text: "Hi", summary: "Welcome").encoded()), problems: []),
    ]

    @Test(arguments: cases)
    func matching(_ example: Case) throws {
        let (expectation, matcher) = try Self.expectation(example.yaml)
        #expect(matcher.mismatches(expectation, example.output) == example.problems)
    }

    @Test func describesExpectationsAsWritten() throws {
        let (expectation, _) = try Self.expectation(#"{ to: "user:bob", card: vcard, fields: { name: "Bob \"B\" Stone" } }"#)
        #expect(ExpectationMatcher.describe(expectation) == #"{ to: user:bob, card: vcard, fields: { name: "Bob \"B\" Stone" } }"#)
    }
}
