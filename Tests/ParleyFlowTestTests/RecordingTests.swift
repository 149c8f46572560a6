import Foundation
import ParleyTesting
import Testing
import ParleyBots
import ParleyCore
import ParleyHub
@testable import ParleyFlowTest

/// A session recorded as `parley chat --record` does (real engine, real hub) replays green.
@Suite struct RecordingTests {
    @Test func recordedSessionReplaysGreen() async throws {
        let harness = try TestFileHarness()
        defer { harness.remove() }
        let profiles = [Profile(id: "alice", name: "Alice Liddell"), Profile(id: "bob", name: "Bob Stone", phone: "+49 30 1234567")]
        let helper = try RecordedHelper(harness: harness, profiles: profiles)
        let (clock, hub, recording, host) = (helper.clock, helper.hub, helper.recording, helper.host)
        try hub.createGroup("team", members: ["alice", "helper"])
        await helper.start()
        let user = try hub.connect(user: "alice")
        for line in ["hello", "/card bob", "/ack", "/ticket 42 \"quoted\"", "/tell see you", "/announce", "/later", "/survey"] {
            try await recording.send(line, via: user)
            await host.waitUntilIdle()
        }
        try await recording.send("/ping", in: .group("team"), via: user)
        await host.waitUntilIdle()
        recording.advancing(by: "5m", from: clock.now(), to: clock.now().addingTimeInterval(300))
        await clock.advance(by: .seconds(300))
        await host.waitUntilIdle()
        await host.stop()

        let yaml = recording.yaml(profiles: profiles)
        #expect(yaml.contains(#"      - expect: { reaction: "👍" }"#))
        #expect(yaml.contains(#"      - expect: { text: "Got it.", quote: last }"#))
        #expect(yaml.contains(#"      - expect: { to: "user:bob", text: "Note for Bob: see you" }"#))
        #expect(yaml.contains(#"      - send: { text: "/ping", in: "group:team" }"#))
        #expect(yaml.contains(#"      - advance: "5m""#))
        #expect(yaml.contains(#"      - expect: { text: "Done waiting." }"#))
        #expect(yaml.contains(#"      - expect: { text: "Too slow." }"#))

        let file = try harness.write(yaml, as: "recorded.test.yaml")
        let results = await harness.run([file])
        #expect(results.first?.errors == [])
        #expect(TextReport.text(for: results) == "ok    recorded.test.yaml: recorded session\n1 passed, 0 failed\n")
    }
}
