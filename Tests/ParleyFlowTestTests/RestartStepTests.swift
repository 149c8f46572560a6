import Foundation
import ParleyBots
import ParleyCore
import ParleyTesting
import Testing
import YAMLCoding
@testable import ParleyFlowTest

/// `restart: true`: once the bot is idle, it stops and starts again on its stored state (SQLite
/// files), through a new connection to the same hub, on the same clock.
@Suite struct RestartStepTests {
    @Test func aFlowAndAWaitCarryOnAcrossARestart() async throws {
        let harness = try TestFileHarness()
        defer { harness.remove() }
        let file = try harness.write(TestFileHarness.file(steps: [
            "- send: /survey", #"- expect: { text: "What is your name?" }"#,
            "- restart: true",
            "- send: Alice", #"- expect: { text: "Thanks, Alice." }"#,
            "- send: /later", #"- expect: { text: "Wait for it." }"#,
            "- restart: true",
            "- advance: 5m", #"- expect: { text: "Done waiting." }"#,
            "- restart: true",
            "- advance: 1h", "- expect: { none: true }",
        ]))
        let results = await harness.run([file])
        #expect(results.first?.errors == [])
        #expect(TextReport.text(for: results) == "ok    case.test.yaml: case\n1 passed, 0 failed\n")
    }

    @Test func theTranscriptMarksTheRestart() async throws {
        let harness = try TestFileHarness()
        defer { harness.remove() }
        let failure = try await harness.failure(steps: [
            "- send: /ping", "- restart: true", "- send: /ping", "- expect: { text: pong }", "- expect: { text: pang }",
        ])
        #expect(failure.report == """
            case.test.yaml:13:9: test 'case' failed at expect: { text: "pang" }
              expected: { text: "pang" }
              actual: "pong"
              text: expected "pang", got "pong"
              transcript:
                clock starts at 2026-12-01T10:00:00Z
                10:00:00  alice: "/ping"
                10:00:00  helper → user:alice: "pong"
                10:00:00  the bot stops and starts again on its stored state
                10:00:00  alice: "/ping"
                10:00:00  helper → user:alice: "pong"
            """)
    }

    @Test func aStageThatCannotRestartTheBotSkipsTheTestSayingWhy() async throws {
        let harness = try TestFileHarness()
        defer { harness.remove() }
        let file = try harness.write(TestFileHarness.file(steps: ["- send: /ping", "- restart: true", "- expect: { text: pong }"]))
        let results = await TestSuite(bots: harness.bots, host: InProcessBotHost(), stage: NoRestartStage(), jobs: 1).run([file])
        let result = try #require(results.first?.tests.first)
        guard case .skipped = result.status else {
            Issue.record("expected the test to be skipped: \(result.status)")
            return
        }
        #expect(result.skipReason == "uses `restart`, which this stage cannot do (it does not run the bot)")
    }

    @Test func restartFalseIsAnError() throws {
        let yaml = FlowHostFile.text(steps: ["- send: /ping", "- restart: false"])
        let file = try YAMLDecoder(environment: [:]).decode(TestFile.self, from: yaml, file: "t.test.yaml")
        let errors = TestFileValidator.validate(file, source: SourceFile(name: "t.test.yaml", text: yaml), bots: try TestFileHarness().bots)
        #expect(errors.map { $0.description } == ["""
            t.test.yaml:10:18: error: 'restart: false' means nothing: write 'restart: true' or leave the step out
                  - restart: false
                             ^
            """])
    }

    /// The hub stage as a stage that cannot connect the bot again.
    private struct NoRestartStage: TestStage {
        var supportsVirtualTime: Bool { true }
        func open(_ run: TestRun) async throws -> any StageSession { try await HubTestStage().open(run) }
    }
}
