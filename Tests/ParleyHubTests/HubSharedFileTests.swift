import Foundation
import ParleyCore
import ParleyHub
import Testing

/// Two hubs on one file (what two processes on one store did before the store lock): each
/// numbers new channels from its own count, so both give their first new conversation the
/// same number. The second write is refused instead of merging members and filing its
/// messages into a stranger's conversation.
@Suite struct HubSharedFileTests {
    @Test func aChannelNumberTakenByAnotherConversationIsRefusedNotMerged() async throws {
        let fixture = try HubFixture(.sqlite, users: ["alice", "bob", "carol", "dan"])
        let other = try fixture.reopen()
        _ = try await fixture.hub.connect(user: "alice").send(OutgoingEnvelope(channel: .person("bob"), payload: text("for bob")))
        // Carol's first message collides with alice's in seq; her second (seq 2) would not:
        // only the channel check keeps it out of alice and bob's conversation.
        let carol = try other.connect(user: "carol")
        for attempt in 1...2 {
            await #expect(throws: ParleyError.self, "attempt \(attempt)") {
                _ = try await carol.send(OutgoingEnvelope(channel: .person("dan"), payload: text("for dan \(attempt)")))
            }
        }
        try other.close()
        try fixture.hub.close()
        let reopened = try fixture.reopen()
        #expect(try reopened.messages(in: .person("alice"), seenBy: "bob").compactMap { $0.payload["text"]?.stringValue } == ["for bob"])
        // Carol's message went nowhere: not into alice and bob's conversation, whose members
        // are still the two of them.
        #expect(try await reopened.connect(user: "bob").members(of: .person("alice")).sorted() == ["alice", "bob"])
        #expect(try reopened.messages(in: .person("dan"), seenBy: "carol").isEmpty)
    }
}
