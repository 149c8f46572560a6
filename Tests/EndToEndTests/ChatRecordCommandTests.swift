import Foundation
import ParleyTesting
import Testing
import ParleyCLI
@testable import ParleyFlowTest

/// `parley chat --record FILE.test.yaml` writes a file that `parley test` passes unchanged.
@Suite struct ChatRecordCommandTests {
    @Test func recordedChatPassesParleyTest() async throws {
        let folder = try TemporaryFolder("flowtest")
        defer { folder.remove() }
        let recorded = folder.url.appendingPathComponent("chat.test.yaml").path
        let lines = ["/ping", "hello", "/ack", "/card bob", "/tell see you", "/docs", "/ticket 9", "/survey", "Alice", "what?"]
        let yaml = try await Self.record(lines, to: recorded)
        #expect(yaml.contains(#"      - expect: { to: "user:bob", text: "Note for Bob: see you" }"#))
        #expect(yaml.contains(#"      - expect: { card: "ticket", fields: { id: "9", state: "open" } }"#))

        await Self.expectPasses(recorded)
    }

    /// A hand-off: the ticket card is expected by its text (helper's own `ticket` card is
    /// another type), and `/in QUEUE TEXT` lines are the agent's sends in the queue's group.
    @Test func recordedHandOffPassesParleyTest() async throws {
        let folder = try TemporaryFolder("flowtest")
        defer { folder.remove() }
        let recorded = folder.url.appendingPathComponent("handoff.test.yaml").path
        let lines = ["/human", "still there?", "/in desk /take 1", "/in desk /reply 1 On it", "/in desk /resolve 1"]
        let yaml = try await Self.record(lines, to: recorded)
        #expect(yaml.contains(#"  agent: { name: "agent" }"#))
        #expect(yaml.contains(#"""
                  # a "ticket" card, which a test cannot name: expected by its text
                  - expect: { to: "group:desk", text: "Ticket #1 from Alice Liddell: Help for Alice Liddell\n> Alice Liddell: /human\n/take 1 · /reply 1 <text> · /resolve 1" }
                  - send: "still there?"
                  - expect: { to: "group:desk", text: "#1 Alice Liddell: still there?" }
                  - expect: { text: "You are number 1 in the queue; an agent will be with you soon." }
                  - send: { text: "/take 1", in: "group:desk", as: "agent" }
                  - expect: { to: "group:desk", text: "Ticket #1 taken by agent." }
                  - send: { text: "/reply 1 On it", in: "group:desk", as: "agent" }
                  - expect: { text: "On it" }
                  - send: { text: "/resolve 1", in: "group:desk", as: "agent" }
                  - expect: { to: "group:desk", text: "Ticket #1 resolved by agent." }
                  - expect: { none: true }
            """#), "\(yaml)")

        await Self.expectPasses(recorded)
    }

    /// `/react EMOJI` reacts to the bot's last message, `/as USER` speaks as another user in
    /// their own conversation with the bot (`/as` alone goes back); both are recorded.
    @Test func recordedReactionsAndAnotherSpeakerPassParleyTest() async throws {
        let folder = try TemporaryFolder("flowtest")
        defer { folder.remove() }
        let recorded = folder.url.appendingPathComponent("reactions.test.yaml").path
        let lines = ["/react 👍", "rate us", "/react 👍", "/as bob", "/ping", "/react ❤️", "/as helper", "/as", "/react nope", "/ping"]
        let chatOutput = CapturedOutput()
        let chat = await ParleyCommand.main(["chat", "--as", "alice", "--bot", "helper", "--record", recorded],
                                            context: CommandContext(output: chatOutput, environment: [:], currentDirectory: TestFixtures.flowHost,
                                                                    input: ScriptedInput(lines)))
        #expect(chat == 0)
        #expect(chatOutput.standardOutput == """
            (Helper has sent alice no message to react to)
            Helper: How did we do? Send 1-5 or react 👍/👎.
            Helper: Noted: 👍.
            (now speaking as bob)
            (to bob) Helper: pong
            (to bob) Helper: Bob Stone sent ❤️
            ('helper' is a bot: choose another user)
            (now speaking as alice)
            (usage: /react EMOJI, one emoji like 👍)
            Helper: pong

            """)
        let yaml = try String(contentsOfFile: recorded, encoding: .utf8)
        #expect(yaml.contains(#"""
                  - send: "rate us"
                  - expect: { text: "How did we do? Send 1-5 or react 👍/👎." }
                  - react: "👍"
                  - expect: { text: "Noted: 👍." }
                  - send: { text: "/ping", as: "bob" }
                  - expect: { to: "user:bob", text: "pong" }
                  - react: { emoji: "❤️", as: "bob" }
                  - expect: { to: "user:bob", text: "Bob Stone sent ❤️" }
                  - send: "/ping"
                  - expect: { text: "pong" }
                  - expect: { none: true }
            """#), "\(yaml)")
        await Self.expectPasses(recorded)
    }

    /// `parley chat --as alice --bot helper --record FILE` fed `lines`; returns the file written.
    private static func record(_ lines: [String], to recorded: String) async throws -> String {
        let chatOutput = CapturedOutput()
        let chat = await ParleyCommand.main(["chat", "--as", "alice", "--bot", "helper", "--record", recorded],
                                            context: CommandContext(output: chatOutput, environment: [:], currentDirectory: TestFixtures.flowHost,
                                                                    input: ScriptedInput(lines)))
        #expect(chat == 0)
        #expect(chatOutput.standardError == "session recorded to \(recorded)\n")
        return try String(contentsOfFile: recorded, encoding: .utf8)
    }

    /// `parley test FILE` passes the recorded session.
    private static func expectPasses(_ recorded: String) async {
        let testOutput = CapturedOutput()
        let test = await ParleyCommand.main(["test", recorded],
                                            context: CommandContext(output: testOutput, environment: [:], currentDirectory: TestFixtures.flowHost))
        #expect(testOutput.standardOutput == "ok    \(recorded): recorded session\n1 passed, 0 failed\n")
        #expect(test == 0)
    }

    @Test func recordNeedsATestFileName() async {
        let output = CapturedOutput()
        let code = await ParleyCommand.main(["chat", "--record", "session.yaml"],
                                            context: CommandContext(output: output, environment: [:], currentDirectory: TestFixtures.flowHost,
                                                                    input: ScriptedInput([])))
        #expect(code == ParleyCommand.usageExitCode)
        #expect(output.standardError.hasPrefix("error: option '--record' needs a file name ending in .test.yaml, got 'session.yaml'\n"))
    }
}
