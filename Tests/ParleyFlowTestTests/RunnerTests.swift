import Foundation
import Testing
@testable import ParleyFlowTest

@Suite struct RunnerTests {
    struct FailingCase: Sendable, CustomTestStringConvertible {
        var name: String
        var steps: [String]
        /// Index of the failing step in `steps`.
        var failingStep: Int
        var detail: String
        var testDescription: String { name }
    }

    static let failing: [FailingCase] = [
        FailingCase(name: "text", steps: ["- send: /ping", "- expect: { text: pang }"], failingStep: 1,
                    detail: #"text: expected "pang", got "pong""#),
        FailingCase(name: "contains", steps: ["- send: /ping", "- expect: { contains: x }"], failingStep: 1,
                    detail: #"contains: expected the text to contain "x", got "pong""#),
        FailingCase(name: "matches", steps: ["- send: /ping", #"- expect: { matches: "^P" }"#], failingStep: 1,
                    detail: #"matches: expected the text to match /^P/, got "pong""#),
        FailingCase(name: "card", steps: ["- send: /ping", "- expect: { card: vcard }"], failingStep: 1,
                    detail: "card: expected vcard, got plain text"),
        FailingCase(name: "fields", steps: ["- send: /card bob", "- expect: { card: vcard, fields: { name: Bob } }"], failingStep: 1,
                    detail: #"fields.name: expected "Bob", got "Bob Stone""#),
        FailingCase(name: "quote", steps: ["- send: /ping", "- expect: { text: pong, quote: last }"], failingStep: 1,
                    detail: "quote: expected the message to quote the user's last message, it quotes nothing"),
        FailingCase(name: "reaction", steps: ["- send: /ack", #"- expect: { reaction: "❤️" }"#], failingStep: 1,
                    detail: "reaction: expected ❤️, got 👍"),
        FailingCase(name: "to", steps: ["- send: /tell hi", #"- expect: { to: "group:team", text: "Note for Bob: hi" }"#], failingStep: 1,
                    detail: "actual: nothing (more) in group:team once the bot was idle"),
        // What idle saw comes with it: every event taken and handled, nothing in flight.
        FailingCase(name: "idle figures", steps: ["- send: /tell hi", #"- expect: { to: "group:team", text: "Note for Bob: hi" }"#], failingStep: 1,
                    detail: "idle: helper: took 2 of 2 events delivered, handled 2, 0 items queued; 0 pieces of work in flight; timers due: false"),
        FailingCase(name: "none", steps: ["- send: /ack", #"- expect: { reaction: "👍" }"#, "- expect: { none: true }"], failingStep: 2,
                    detail: "expected: nothing more in user:alice"),
        FailingCase(name: "advance too short for wait",
                    steps: ["- send: /later", #"- expect: { text: "Wait for it." }"#, "- advance: 299s", #"- expect: { text: "Done waiting." }"#],
                    failingStep: 3, detail: "actual: nothing (more) in user:alice once the bot was idle"),
        FailingCase(name: "advance too short for timeout",
                    steps: ["- send: /survey", "- expect: { contains: name }", "- advance: 119s", #"- expect: { text: "Too slow." }"#],
                    failingStep: 3, detail: "actual: nothing (more) in user:alice once the bot was idle"),
        FailingCase(name: "later step",
                    steps: ["- send: /ping", "- expect: { text: pong }", "- send: /ping", "- expect: { text: ping }"],
                    failingStep: 3, detail: #"text: expected "ping", got "pong""#),
    ]

    @Test(arguments: failing)
    func failingExpectationFailsAtItsLine(_ example: FailingCase) async throws {
        let harness = try TestFileHarness()
        defer { harness.remove() }
        let failure = try await harness.failure(steps: example.steps)
        #expect(failure.line == TestFileHarness.firstStepLine + example.failingStep)
        #expect(failure.column == 9)
        #expect(failure.test == "case")
        #expect(failure.details.contains(example.detail), "\(failure.details)")
    }

    @Test func failureReportShowsExpectedActualAndTranscript() async throws {
        let harness = try TestFileHarness()
        defer { harness.remove() }
        let failure = try await harness.failure(steps: [
            "- send: /ack", #"- expect: { reaction: "👍" }"#, "- expect: { quote: last }", "- advance: 1m", "- send: /card bob",
            "- expect: { text: Bob }",
        ])
        #expect(failure.report == """
            case.test.yaml:14:9: test 'case' failed at expect: { text: "Bob" }
              expected: { text: "Bob" }
              actual: card vcard { name: "Bob Stone", user: "bob" }
              text: expected "Bob", got "[Contact] Bob Stone"
              transcript:
                clock starts at 2026-12-01T10:00:00Z
                10:00:00  alice: "/ack"
                10:00:00  helper → user:alice: reaction 👍 on "/ack"
                10:00:00  helper → user:alice: "Got it." (quoting "/ack", the user's last message)
                10:00:00  clock advances 1m to 2026-12-01T10:01:00Z
                10:01:00  alice: "/card bob"
                10:01:00  helper → user:alice: card vcard { name: "Bob Stone", user: "bob" }
            """)
    }

    @Test func parallelRunsReportLikeSerialOnes() async throws {
        let harness = try TestFileHarness()
        defer { harness.remove() }
        var files = [TestDiscovery.Found(file: "bots/helper.test.yaml", path: TestFileHarness.fixtures + "/bots/helper.test.yaml")]
        for (index, example) in Self.failing.enumerated() {
            files.append(try harness.write(TestFileHarness.file(steps: example.steps), as: "case\(index).test.yaml"))
        }
        let serial = TextReport.text(for: await harness.run(files, jobs: 1))
        let parallel = TextReport.text(for: await harness.run(files, jobs: 4))
        #expect(serial == parallel)
        #expect(serial.hasSuffix("9 passed, 13 failed\n"))
    }

    @Test func filterSkipsOtherTests() async throws {
        let harness = try TestFileHarness()
        defer { harness.remove() }
        let file = TestDiscovery.Found(file: "helper.test.yaml", path: TestFileHarness.fixtures + "/bots/helper.test.yaml")
        let results = await harness.run([file], filter: "flow")
        #expect(TestSummary(results).line == "2 passed, 0 failed, 7 skipped")
    }
}
