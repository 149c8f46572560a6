import Foundation
import ParleyCLI
import Testing
import ParleyTesting

/// `parley chat` driven through a pipe: lines in, a transcript out, exit 0 once every
/// answer is in.
@Suite struct ChatCommandTests {
    /// A config folder with the support bot, a second bot and a profile directory.
    static func makeFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-chat-\(UUID().uuidString)")
        let bots = folder.appendingPathComponent("bots")
        try FileManager.default.createDirectory(at: bots, withIntermediateDirectories: true)
        try """
            storage:
              path: ":memory:"
            profiles:
              directory: profiles.yaml
            """.write(to: folder.appendingPathComponent("config.yaml"), atomically: true, encoding: .utf8)
        try """
            bob: { name: Bob Stone, phone: "+49 30 1234567" }
            alice: { name: Alice }
            """.write(to: folder.appendingPathComponent("profiles.yaml"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(at: TestFixtures.folder.appendingPathComponent("support.yaml"),
                                         to: bots.appendingPathComponent("support.yaml"))
        try """
            name: Echo
            greeting:
              - send: { card: greeting, text: "Hi {{user.name}}!" }
            fallback:
              - reply: "You said: {{message.text}}"
            """.write(to: bots.appendingPathComponent("echo.yaml"), atomically: true, encoding: .utf8)
        return folder
    }

    @Test func pipedLinesGiveATranscript() async throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = CapturedOutput()
        let input = ScriptedInput(["/echo hello  world", "/card bob", "/docs", "thanks!", "/refund", "/switch echo", "hi there", "/switch nobody", "/quit", "/echo never"])
        let context = CommandContext(output: output, environment: [:], currentDirectory: folder.path, input: input)
        let code = try await withTimeout("parley chat") {
            await ParleyCommand.main(["chat", "--as", "alice", "--bot", "support"], context: context)
        }
        #expect(code == 0)
        #expect(output.standardError == "")
        #expect(output.standardOutput == """
            Support: hello  world
            Support:
              ┌───────────────────────┐
              │ Bob Stone             │
              │ phone: +49 30 1234567 │
              │ id: bob               │
              └───────────────────────┘
            Support: 🔗 Parley docs <https://example.com/docs>
            Support reacted ❤️
            Support reacted 👀
            Support: (replying to “/refund”) Let's sort this out.
            Support: What is your order number?
            (now talking to Echo)
            Echo: 👋 Hi Alice!
            Echo: You said: hi there
            (no bot 'nobody'; bots: echo, support)

            """)
    }

    @Test func handOffThroughTheConsole() async throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = CapturedOutput()
        let input = ScriptedInput(["/refund", "123456", "still there?", "/in agents /take 1", "/in agents /reply 1 Refund sent!",
                                   "/in agents /resolve 1", "/echo me again", "/in nowhere x"])
        let context = CommandContext(output: output, environment: [:], currentDirectory: folder.path, input: input)
        let code = try await withTimeout("parley chat") {
            await ParleyCommand.main(["chat", "--as", "alice", "--bot", "support"], context: context)
        }
        #expect(code == 0)
        let lines = output.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("[agents]   Ticket #1 from Alice: Refund for 123456"))
        #expect(lines.contains("[agents] Support: #1 Alice: still there?"))
        // `/in` lines are the console's agent's, not the customer's own.
        #expect(lines.suffix(5) == ["[agents] Support: Ticket #1 taken by agent.", "Support: Refund sent!",
                                    "[agents] Support: Ticket #1 resolved by agent.", "Support: me again",
                                    "(usage: /in QUEUE TEXT; queues: agents)"])
    }

    @Test func badConfigPrintsCheckErrorsAndExits1() async throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try "commands:\n  x:\n    reply: \"{{nope}}\"\n".write(to: folder.appendingPathComponent("bots/bad.yaml"), atomically: true, encoding: .utf8)
        let output = CapturedOutput()
        let context = CommandContext(output: output, environment: [:], currentDirectory: folder.path, input: ScriptedInput([]))
        let code = await ParleyCommand.main(["chat"], context: context)
        #expect(code == 1)
        #expect(output.standardError.contains("bots/bad.yaml:3:12: "))
        #expect(output.standardOutput == "")
    }

    @Test func unknownBotIsAUsageError() async throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = CapturedOutput()
        let context = CommandContext(output: output, environment: [:], currentDirectory: folder.path, input: ScriptedInput([]))
        let code = await ParleyCommand.main(["chat", "--bot", "ghost"], context: context)
        #expect(code == 64)
        #expect(output.standardError.hasPrefix("error: no bot 'ghost' (bots: echo, support)\nusage: parley chat"))
    }
}
