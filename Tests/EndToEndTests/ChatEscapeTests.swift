import Foundation
import ParleyCLI
import Testing
import ParleyTesting

/// What users, profiles and bots write reaches the console escaped: an escape sequence in a
/// message, a name or a card never retitles or clears the operator's terminal, and a user id
/// that would forge a line is refused.
@Suite struct ChatEscapeTests {
    static let osc = "\u{1B}]0;pwned\u{07}"
    static let csi = "\u{1B}[2J"

    static func chat(_ lines: [String], arguments: [String], in folder: URL) async throws -> (code: Int32, output: CapturedOutput) {
        let output = CapturedOutput()
        let context = CommandContext(output: output, environment: [:], currentDirectory: folder.path, input: ScriptedInput(lines))
        let code = try await withTimeout("parley chat") { await ParleyCommand.main(["chat"] + arguments, context: context) }
        return (code, output)
    }

    @Test func escapeSequencesInMessagesNamesAndCardsArePrintedAsVisibleEscapes() async throws {
        let folder = try ChatCommandTests.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A bot whose name carries both sequences (YAML's \e is ESC, \a BEL).
        try #"""
            name: "Evil\e]0;pwned\a\e[2J"
            fallback:
              - reply: "ok"
            """#.write(to: folder.appendingPathComponent("bots/evil.yaml"), atomically: true, encoding: .utf8)
        // `/card` of a user without a profile shows the id as the card's name.
        let (code, output) = try await Self.chat(
            ["/card \(Self.osc)\(Self.csi)", "/switch echo", "a \(Self.osc) b \(Self.csi) c", "/switch evil", "hi"],
            arguments: ["--as", "alice", "--bot", "support"], in: folder)
        #expect(code == 0)
        #expect(!output.standardOutput.contains("\u{1B}") && !output.standardOutput.contains("\u{07}"))
        #expect(!output.standardError.contains("\u{1B}"))
        let lines = output.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains(#"Echo: You said: a \u{1B}]0;pwned\u{7} b \u{1B}[2J c"#))
        #expect(lines.contains(#"Evil\u{1B}]0;pwned\u{7}\u{1B}[2J: ok"#))
        #expect(lines.contains { $0.hasPrefix(#"  │ \u{1B}]0;pwned\u{7}\u{1B}[2J "#) })
    }

    @Test func aUserIdWithALineBreakIsAUsageError() async throws {
        let folder = try ChatCommandTests.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for id in ["x\nSupport: hi", "x\(Self.csi)"] {
            let (code, output) = try await Self.chat([], arguments: ["--as", id], in: folder)
            #expect(code == 64)
            #expect(output.standardOutput == "")
            #expect(output.standardError.hasPrefix("error: option '--as' needs a user id without spaces or control characters\n"))
        }
    }
}
