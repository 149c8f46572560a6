import Foundation
import Testing
import YAMLCoding

/// A realistic bot file with several mistakes: every one reported, in file order.
@Suite struct FixtureTests {
    struct Action: Decodable {
        var reply: String?
        var react: String?
        var quote: Bool?
    }

    struct Command: Decodable {
        var description: String?
        var reply: String?
        var args: [String]?
        var `do`: [Action]?
    }

    struct Schedule: Decodable {
        var name: String
        var cron: String
        var rate: Double?
    }

    struct Defaults: Decodable { var quote: Bool }

    struct Bot: Decodable {
        var id: String
        var name: String
        var prefix: String
        var password: String
        var defaults: Defaults?
        var commands: [String: Command]
        var schedules: [Schedule]
    }

    static func fixture(_ name: String) throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)")
        return try String(contentsOf: url, encoding: .utf8)
    }

    @Test func everyMistakeInOneRun() throws {
        let text = try Self.fixture("support-with-errors.yaml")
        #expect(renderedErrors(Bot.self, text, file: "bots/support.yaml") == """
            bots/support.yaml:5:11: error: environment variable 'SUPPORT_PASSWORD' is not set (use '${SUPPORT_PASSWORD:-default}' for a default)
            password: ${SUPPORT_PASSWORD}
                      ^
            bots/support.yaml:13:5: error: unknown key 'descripton', did you mean 'description'?
                descripton: Send someone's business card
                ^
            bots/support.yaml:20:16: error: expected true or false, found 'sometimes'
                    quote: sometimes
                           ^
            bots/support.yaml:21:3: error: duplicate key 'help' (first defined at line 9)
              help:
              ^
            bots/support.yaml:26:11: error: expected a number, found 'fast'
                rate: fast
                      ^
            """)
    }

    @Test func theSameFileDecodesOnceFixed() throws {
        var text = try Self.fixture("support-with-errors.yaml")
        text = text.replacingOccurrences(of: "descripton", with: "description")
            .replacingOccurrences(of: "sometimes", with: "false")
            .replacingOccurrences(of: "  help:\n    reply: again\n", with: "")
            .replacingOccurrences(of: "rate: fast", with: "rate: 2.5")
        let bot = try YAMLDecoder(environment: ["SUPPORT_PASSWORD": "s3cret"]).decode(Bot.self, from: text, file: "bots/support.yaml")
        #expect(bot.password == "s3cret")
        #expect(bot.commands["refund"]?.do?.first?.quote == true)  // merged from the anchor
        #expect(bot.commands["refund"]?.do?.last?.quote == false)
        #expect(bot.schedules.first?.rate == 2.5)
        #expect(bot.name == "Support 🤖")
    }
}
