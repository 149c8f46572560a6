import Foundation
@testable import ParleyBots
import ParleyCore
import Testing

/// How a command line splits into its name and args, for ASCII lines (split on bytes) and
/// others (split on characters): the same shapes give the same results.
@Suite struct RouterCommandLineTests {
    static let yaml = """
        id: lines
        commands:
          pair:
            args: [first, rest]
            reply: "[{{args.first}}|{{args.rest}}]"
          ping:
            reply: "pong"
        fallback:
          - reply: "?"
        """

    let bot: CompiledBot
    init() throws { bot = try BotHostTests.compile("lines", Self.yaml) }

    func answer(_ text: String) -> (route: String, texts: [String]) {
        let plan = Router.decide(bot: bot, state: ConversationState(), input: .message(text: text, from: InboundUser(id: "u", name: "U")),
                                 now: Date(timeIntervalSince1970: 0))
        return (plan.route, plan.effects.compactMap { if case .send(.text(let text), _, _) = $0 { text } else { nil } })
    }

    @Test(arguments: [
        ("/pair a b", "command pair", "[a|b]"),
        ("/pair \t a \t  b  c \t ", "command pair", "[a|b  c]"),
        ("/pair a\r\nb\r\n", "command pair", "[a|b]"),
        ("/pair\u{0B}x\u{0C}y z", "command pair", "[x|y z]"),
        ("/pair é ü ö ", "command pair", "[é|ü ö]"),
        ("/pair\u{00A0}é\u{2003}ü\u{3000}ö\u{00A0}", "command pair", "[é|ü\u{3000}ö]"),
        ("/pair a\u{0301} b\u{0301}", "command pair", "[a\u{0301}|b\u{0301}]"),
        ("/pair a", "usage pair", nil),
        ("/pair é   ", "usage pair", nil),
        ("/ping", "command ping", "pong"),
        ("/ping\r\n", "command ping", "pong"),
        ("/ping\u{00A0}now", "command ping", "pong"),
        ("/pingé", "fallback", "?"),
        ("/\u{1C}ping", "fallback", "?"),
        ("/ping\u{1C}", "fallback", "?"),
        ("/ ping", "fallback", "?"),
        ("ping", "fallback", "?"),
    ] as [(String, String, String?)])
    func linesSplitAsTyped(line: String, route: String, reply: String?) {
        let result = answer(line)
        #expect(result.route == route)
        if let reply { #expect(result.texts == [reply]) }
    }

    @Test func theByteTestAgreesWithCharacterWhitespaceOnEveryASCIICharacter() {
        for byte in UInt8(0)..<0x80 {
            #expect(Router.isASCIIWhitespace(byte) == Character(Unicode.Scalar(byte)).isWhitespace, "byte \(byte)")
        }
    }
}
