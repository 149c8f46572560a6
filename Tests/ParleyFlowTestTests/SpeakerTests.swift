import Foundation
import Testing
import ParleyCore
@testable import ParleyFlowTest

/// `send: {…, as: USER}`: another user speaks, in a group or in their own direct conversation.
@Suite struct SpeakerTests {
    @Test func otherUsersSpeakInGroupsAndInTheirOwnConversation() async throws {
        let harness = try TestFileHarness()
        defer { harness.remove() }
        // bob is no member of group:team until he speaks there: the hub would refuse his message.
        let file = try harness.write(TestFileHarness.file(steps: [
            #"- send: { text: /ping, in: "group:team", as: bob }"#,
            #"- expect: { to: "group:team", text: pong }"#,
            "- send: { text: hello, as: bob }",
            #"- expect: { to: "user:bob", text: "Hello, Bob Stone!" }"#,
            "- send: { text: /ack, as: carol }",
            #"- expect: { to: "user:carol", reaction: "👍" }"#,
            #"- expect: { to: "user:carol", text: "Got it.", quote: last }"#,
            #"- expect: { to: "user:bob", none: true }"#,
            "- expect: { none: true }",
        ]))
        let results = await harness.run([file])
        #expect(results.first?.errors == [])
        #expect(TextReport.text(for: results) == "ok    case.test.yaml: case\n1 passed, 0 failed\n")
    }

    @Test func transcriptNamesWhoSpoke() async throws {
        let harness = try TestFileHarness()
        defer { harness.remove() }
        let failure = try await harness.failure(steps: [
            #"- send: { text: /ping, in: "group:team", as: bob }"#, "- send: { text: /ping, as: carol }",
            #"- expect: { to: "user:carol", text: pang }"#,
        ])
        #expect(failure.report == """
            case.test.yaml:11:9: test 'case' failed at expect: { to: user:carol, text: "pang" }
              expected: { to: user:carol, text: "pang" }
              actual: "pong"
              text: expected "pang", got "pong"
              transcript:
                clock starts at 2026-12-01T10:00:00Z
                10:00:00  bob in group:team: "/ping"
                10:00:00  helper → group:team: "pong"
                10:00:00  carol: "/ping"
                10:00:00  helper → user:carol: "pong"
            """)
    }

    @Test func aStageThatCannotConnectOthersFailsTheStep() async throws {
        let harness = try TestFileHarness()
        defer { harness.remove() }
        let file = try harness.write(TestFileHarness.file(steps: ["- send: /ping", "- send: { text: /ping, as: bob }"]))
        let results = await TestSuite(bots: harness.bots, host: InProcessBotHost(), stage: TestUserOnlyStage(), jobs: 1).run([file])
        guard case .failed(let failure)? = results.first?.tests.first?.status else {
            Issue.record("expected the test to fail: \(results)")
            return
        }
        #expect(failure.line == TestFileHarness.firstStepLine + 1)
        #expect(failure.step == #"send: "/ping" as bob"#)
        #expect(failure.details == ["cannot speak as bob: invalidArgument: this stage has no connection for another user ('bob'): run the test on the embedded hub"])
    }

    /// The hub stage without its `connect`, as a stage that only has the test user's connection.
    private struct TestUserOnlyStage: TestStage {
        var supportsVirtualTime: Bool { true }
        func open(_ run: TestRun) async throws -> any StageSession {
            TestUserOnly(hub: try await HubTestStage().open(run))
        }

        struct TestUserOnly: StageSession {
            let hub: any StageSession
            var botTransport: any Transport { hub.botTransport }
            var userTransport: any Transport { hub.userTransport }
            var deliveredEventCount: Int { hub.deliveredEventCount }
        }
    }
}
