import Testing
@testable import ParleyBots

@Suite struct BotLoggerTests {
    @Test(arguments: [
        ("plain", "plain"),
        ("two words", #""two words""#),
        ("line\nbreak\t\"q\" \\", #""line\nbreak\t\"q\" \\""#),
        ("bell\u{07}=x", #""bell\u0007=x""#),
        ("", #""""#),
    ])
    func textValuesStayOnOneLine(value: String, expected: String) {
        #expect(BotLogger.quoteIfNeeded(value) == expected)
    }

    @Test func longValuesAreShortened() {
        let quoted = BotLogger.quoteIfNeeded(String(repeating: "a", count: 300))
        #expect(quoted == String(repeating: "a", count: 200) + "…")
    }
}
