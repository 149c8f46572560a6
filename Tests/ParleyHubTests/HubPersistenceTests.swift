import Foundation
import ParleyCore
import ParleyHub
import Testing

@Suite struct HubPersistenceTests {
    @Test func reopenedHubKeepsHistorySeqReceiptsAndCursors() async throws {
        let fixture = try HubFixture(.sqlite)
        try fixture.hub.createGroup("team", name: "Team", members: ["alice", "bob", "carol"])
        let alice = try fixture.hub.connect(user: "alice")
        let (bobDevice, bobSession) = try await fixture.online("bob")
        let hello = OutgoingEnvelope(channel: .person("bob"), payload: text("hello"), extensions: ["sender.name": "Alice"])
        let first = try await alice.send(hello)
        let quote = ReplyReference(messageID: first.messageID, seq: 1, sender: "alice", quoted: text("hello"))
        let secret = try await alice.send(OutgoingEnvelope(channel: .group("team"), payload: text("secret"), replyTo: quote, visibleTo: ["carol"]))
        let open = try await alice.send(OutgoingEnvelope(channel: .group("team"), payload: text("open")))
        try await bobSession.waitForMessages(2)
        let bob = try fixture.hub.connect(user: "bob")
        try await bob.setReaction("👍", on: open.messageID, in: .group("team"), added: true)
        await bobDevice.disconnect()
        let typing = try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("…"), flags: .noPersist))
        _ = try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("while bob sleeps")))
        let (_, carolSession) = try await fixture.online("carol")
        try fixture.hub.close()
        try await carolSession.waitForFinish()
        let closed = await #expect(throws: ParleyError.self) { try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("x"))) }
        #expect(closed?.code == .notConnected)

        let reopened = try fixture.reopen()
        #expect(reopened.user("alice")?.name == "Alice")
        let alice2 = try reopened.connect(user: "alice")
        let carol2 = try reopened.connect(user: "carol")
        let history = try await carol2.history(of: .group("team"), after: 0, limit: 10)
        #expect(history.map(\.text) == ["secret", "open"])
        #expect(history.first?.replyTo == quote)
        #expect(history.first?.visibleTo == ["carol"])
        #expect(history.first?.id == secret.messageID)
        #expect(history.last?.reactions == [ReactionSummary(emoji: "👍", users: ["bob"])])
        #expect(try await carol2.members(of: .group("team")) == ["alice", "bob", "carol"])
        let person = try await alice2.history(of: .person("bob"), after: 0, limit: 10)
        #expect(person.map(\.text) == ["hello", "while bob sleeps"])
        #expect(person.first?.extensions == ["sender.name": "Alice"])
        #expect(person.first?.timestamp == first.timestamp)

        // Seq continues past the noPersist one; an old client message number still answers.
        #expect(try await alice2.send(hello) == first)
        let next = try await alice2.send(OutgoingEnvelope(channel: .person("bob"), payload: text("after restart")))
        #expect(next.seq == typing.seq + 2)
        #expect(try reopened.storedCount(of: hello.clientMessageID) == 1)

        // Bob's cursor survived: his catch-up starts after what he had received.
        let bobAgain = EventRecorder(try await reopened.connect(user: "bob").connect())
        #expect(try await bobAgain.waitForMessages(2).map(\.text) == ["while bob sleeps", "after restart"])
    }

    @Test func unreadableDatabaseIsAStorageError() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-hub-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("hub.sqlite").path
        try Data("this is not a database, just some text long enough to be read".utf8).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: ParleyError.self) { try Hub(path: path) }
        #expect(error?.code == .storage)
        #expect(error?.context["path"] == path)
    }
}
