import Foundation
import ParleyCore
import ParleyHub
import Testing

@Suite struct HubReactionTests {
    @Test(arguments: Storage.allCases)
    func reactionsAreIdempotentAndReachMembers(storage: Storage) async throws {
        let fixture = try HubFixture(storage)
        try fixture.hub.createGroup("team", members: ["alice", "bob", "carol"])
        let alice = try fixture.hub.connect(user: "alice")
        let (bobTransport, bob) = try await fixture.online("bob")
        let (carolTransport, carol) = try await fixture.online("carol")
        let receipt = try await alice.send(OutgoingEnvelope(channel: .group("team"), payload: text("lunch?")))

        try await bobTransport.setReaction("👍", on: receipt.messageID, in: .group("team"), added: true)
        try await bobTransport.setReaction("👍", on: receipt.messageID, in: .group("team"), added: true)
        try await carolTransport.setReaction("👍", on: receipt.messageID, in: .group("team"), added: true)
        try await carolTransport.setReaction("🍕", on: receipt.messageID, in: .group("team"), added: true)
        try await carolTransport.setReaction("🍕", on: receipt.messageID, in: .group("team"), added: false)
        try await carolTransport.setReaction("🍕", on: receipt.messageID, in: .group("team"), added: false)

        let history = try await alice.history(of: .group("team"), after: 0, limit: 10)
        #expect(history.first?.reactions == [ReactionSummary(emoji: "👍", users: ["bob", "carol"])])
        try await bobTransport.setReaction("🎉", on: receipt.messageID, in: .group("team"), added: true)
        #expect(try fixture.hub.reactions(on: receipt.messageID, in: .group("team"), seenBy: "alice") == [
            ReactionSummary(emoji: "👍", users: ["bob", "carol"]), ReactionSummary(emoji: "🎉", users: ["bob"]),
        ])
        #expect(throws: ParleyError.self) { try fixture.hub.reactions(on: "m0.99", in: .group("team"), seenBy: "alice") }

        // Bob sees carol's three changes (not his own); the duplicates made no event.
        try await bob.wait { events, _ in events.count { if case .reaction = $0 { true } else { false } } >= 3 }
        #expect(bob.reactions.map(\.user) == ["carol", "carol", "carol"])
        #expect(bob.reactions.map(\.added) == [true, true, false])
        #expect(bob.reactions.map(\.emoji) == ["👍", "🍕", "🍕"])
        #expect(bob.reactions.allSatisfy { $0.messageID == receipt.messageID && $0.channel == .group("team") })
        try await carol.wait { events, _ in events.count { if case .reaction = $0 { true } else { false } } >= 2 }
        #expect(carol.reactions.map(\.user) == ["bob", "bob"])
        #expect(carol.reactions.map(\.emoji) == ["👍", "🎉"])
    }

    @Test(arguments: Storage.allCases)
    func reactionsOnUnknownOrHiddenMessagesAreNotFound(storage: Storage) async throws {
        let fixture = try HubFixture(storage)
        try fixture.hub.createGroup("team", members: ["alice", "bob", "carol"])
        let alice = try fixture.hub.connect(user: "alice")
        let carol = try fixture.hub.connect(user: "carol")
        let secret = try await alice.send(OutgoingEnvelope(channel: .group("team"), payload: text("psst"), visibleTo: ["bob"]))
        let open = try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("hi")))

        for (id, channel) in [(secret.messageID, Channel.group("team")), ("m999.1", .group("team")), ("garbage", .group("team")),
                              (open.messageID, .group("team"))] {
            let error = await #expect(throws: ParleyError.self) {
                try await carol.setReaction("👀", on: id, in: channel, added: true)
            }
            #expect(error?.code == .notFound, "\(id)")
        }
        let empty = await #expect(throws: ParleyError.self) {
            try await alice.setReaction("", on: open.messageID, in: .person("bob"), added: true)
        }
        #expect(empty?.code == .invalidArgument)
    }

    @Test(arguments: Storage.allCases)
    func replyReferenceIsStoredAndDelivered(storage: Storage) async throws {
        let fixture = try HubFixture(storage)
        let alice = try fixture.hub.connect(user: "alice")
        let (bobTransport, _) = try await fixture.online("bob")
        let aliceEvents = EventRecorder(try await alice.connect())
        let question = try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("tea?")))
        let reference = ReplyReference(messageID: question.messageID, seq: question.seq, sender: "alice", quoted: text("tea?"))
        _ = try await bobTransport.send(OutgoingEnvelope(
            channel: .person("alice"), payload: text("yes"), replyTo: reference, extensions: ["sender.name": "Bob"]))

        let received = try await aliceEvents.waitForMessages(1)
        #expect(received.first?.replyTo == reference)
        #expect(received.first?.extensions == ["sender.name": "Bob"])
        let stored = try await bobTransport.history(of: .person("alice"), after: 0, limit: 10)
        #expect(stored.last?.replyTo == reference)
        #expect(stored.last?.extensions == ["sender.name": "Bob"])
    }
}
