import Foundation
import ParleyBots
import ParleyCore
import ParleyHub
import ParleyTesting
import Testing
import YAMLCoding
@testable import ParleyFlowTest

/// `react: EMOJI`: the test user (or `as:` user, in `in:` channel) reacts to the bot's last
/// message there; the bot routes it (an `ask` with `reactions`, a `reaction:` trigger).
@Suite struct ReactStepTests {
    @Test func theFixtureFileOfReactionsPasses() async throws {
        let harness = try TestFileHarness()
        defer { harness.remove() }
        let file = TestDiscovery.Found(file: "helper.test.yaml", path: TestFileHarness.fixtures + "/reactions/helper.test.yaml")
        let results = await harness.run([file])
        #expect(results.first?.errors == [])
        #expect(TextReport.text(for: results) == """
            ok    helper.test.yaml: a reaction answers the rating question
            ok    helper.test.yaml: text still answers it
            ok    helper.test.yaml: a reaction the question does not list goes to the triggers, and the question waits
            ok    helper.test.yaml: a reaction trigger, and silence for an emoji nothing takes
            ok    helper.test.yaml: another user reacts in their own conversation
            5 passed, 0 failed

            """)
    }

    @Test func reactingBeforeTheBotSaidAnythingThereFailsTheStep() async throws {
        let harness = try TestFileHarness()
        defer { harness.remove() }
        let failure = try await harness.failure(steps: [
            "- send: /ping", #"- react: { emoji: "👍", in: "group:team" }"#,
        ])
        #expect(failure.line == TestFileHarness.firstStepLine + 1)
        #expect(failure.step == "react: 👍 in group:team")
        #expect(failure.details == ["nothing to react to: the bot has sent no message in group:team"])
    }

    @Test func theTranscriptShowsWhoReactedToWhat() async throws {
        let harness = try TestFileHarness()
        defer { harness.remove() }
        let failure = try await harness.failure(steps: [
            "- send: /ping", "- expect: { text: pong }", #"- react: "❤️""#, #"- expect: { text: "nope" }"#,
        ])
        #expect(failure.report == """
            case.test.yaml:12:9: test 'case' failed at expect: { text: "nope" }
              expected: { text: "nope" }
              actual: "alice sent ❤️"
              text: expected "nope", got "alice sent ❤️"
              transcript:
                clock starts at 2026-12-01T10:00:00Z
                10:00:00  alice: "/ping"
                10:00:00  helper → user:alice: "pong"
                10:00:00  alice reacted ❤️ on "pong"
                10:00:00  helper → user:alice: "alice sent ❤️"
            """)
    }

    @Test func reactStepShapesAndErrors() throws {
        let yaml = """
            bot: support
            tests:
              - name: t
                steps:
                  - react: "👍"
                  - react: { emoji: "👎", in: "group:agents", as: nina }
                  - react: "ok"
                  - react: { emoji: "👍", in: "user:nina" }
                  - expect: { none: true }
                    as: nina
                  - send: { text: hi, as: nina }
                    as: omar
                  - send: hi
                    in: "group:agents"
            """
        let file = try YAMLDecoder(environment: [:]).decode(TestFile.self, from: yaml, file: "t.test.yaml")
        let steps = try #require(file.tests.first?.steps)
        guard case .react(let emoji, nil, nil)? = steps[0].kind, case .react(let emoji2, let channel?, let speaker?)? = steps[1].kind,
              case .send(_, let group?, nil)? = steps[6].kind else {
            Issue.record("expected two react steps and a send with 'in' beside it")
            return
        }
        #expect(emoji.value == "👍" && emoji2.value == "👎" && channel.value == "group:agents" && speaker.value == "nina")
        #expect(group.value == "group:agents")
        let errors = TestFileValidator.validate(file, source: SourceFile(name: "t.test.yaml", text: yaml),
                                                bots: [try TestFileTests.supportBot()])
        #expect(errors.map { String($0.description.prefix { $0 != "\n" }) } == [
            "t.test.yaml:7:16: error: invalid reaction 'ok': expected one emoji, like \"👍\"",
            "t.test.yaml:8:34: error: invalid 'in' target 'user:nina': expected group:ID (the direct conversation is the default)",
            "t.test.yaml:9:9: error: 'in' and 'as' go with a 'send' or 'react' step, not with 'expect'",
            "t.test.yaml:11:9: error: 'as' is given twice: inside the step's mapping and beside it",
        ])
    }
}

/// `parley chat --record` with reactions and another speaker replays green.
@Suite struct RecordedReactionTests {
    @Test func aRecordedSessionWithReactionsAndAnotherSpeakerReplaysGreen() async throws {
        let harness = try TestFileHarness()
        defer { harness.remove() }
        let profiles = [Profile(id: "alice", name: "Alice Liddell"), Profile(id: "bob", name: "Bob Stone")]
        let helper = try RecordedHelper(harness: harness, profiles: profiles)
        let (hub, recording, host) = (helper.hub, helper.recording, helper.host)
        await helper.start()
        let alice = try hub.connect(user: "alice"), bob = try hub.connect(user: "bob")
        /// Reacts as `speaker` to the bot's last message in their conversation, as the console does.
        func react(_ emoji: String, as speaker: String, via transport: HubTransport) async throws {
            let last = try #require(try hub.messages(in: .person("helper"), seenBy: speaker).last { $0.sender == "helper" })
            recording.userWillReact(emoji, on: last.id, as: speaker == "alice" ? nil : speaker)
            try await transport.setReaction(emoji, on: last.id, in: .person("helper"), added: true)
            await host.waitUntilIdle()
        }
        try await recording.send("rate us", via: alice)
        await host.waitUntilIdle()
        try await react("👍", as: "alice", via: alice)
        try await recording.send("/ping", as: "bob", via: bob)
        await host.waitUntilIdle()
        try await react("❤️", as: "bob", via: bob)
        await host.stop()

        let yaml = recording.yaml(profiles: profiles)
        #expect(yaml.contains(#"      - react: "👍""#))
        #expect(yaml.contains(#"      - expect: { text: "Noted: 👍." }"#))
        #expect(yaml.contains(#"      - send: { text: "/ping", as: "bob" }"#))
        #expect(yaml.contains(#"      - react: { emoji: "❤️", as: "bob" }"#))
        #expect(yaml.contains(#"      - expect: { to: "user:bob", text: "Bob Stone sent ❤️" }"#))
        #expect(recording.speakers == ["bob"])
        let file = try harness.write(yaml, as: "recorded.test.yaml")
        let results = await harness.run([file])
        #expect(results.first?.errors == [])
        #expect(TextReport.text(for: results) == "ok    recorded.test.yaml: recorded session\n1 passed, 0 failed\n")
    }
}
