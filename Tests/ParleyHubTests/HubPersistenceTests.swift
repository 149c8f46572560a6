import Foundation
import ParleyStore
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
        let lastInGroup = try await alice.send(OutgoingEnvelope(channel: .group("team"), payload: text("…"), flags: .noPersist))
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
        // The group's last message was noPersist: numbering still continues after it.
        #expect(try await alice2.send(OutgoingEnvelope(channel: .group("team"), payload: text("g"))).seq == lastInGroup.seq + 1)

        // Bob's cursor survived: his catch-up starts after what he had received.
        let bobAgain = EventRecorder(try await reopened.connect(user: "bob").connect())
        #expect(try await bobAgain.waitForMessages(3).map(\.text) == ["g", "while bob sleeps", "after restart"])
    }

    /// Cursors are written when a stream ends, so a hub that was never closed (a crash)
    /// still resumes catch-up after what a user had received before disconnecting.
    @Test func cursorsSurviveWithoutCloseOnceTheStreamEnded() async throws {
        let fixture = try HubFixture(.sqlite)
        let alice = try fixture.hub.connect(user: "alice")
        let (bob, session) = try await fixture.online("bob")
        for index in 1...2 { _ = try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("seen \(index)"))) }
        try await session.waitForMessages(2)
        await bob.disconnect()
        _ = try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("missed")))

        let reopened = try fixture.reopen()
        let catchUp = EventRecorder(try await reopened.connect(user: "bob").connect())
        _ = try await reopened.connect(user: "alice").send(OutgoingEnvelope(channel: .person("bob"), payload: text("marker")))
        #expect(try await catchUp.waitForMessages(2).map(\.text) == ["missed", "marker"])
    }

    /// A person channel whose first send was refused is still written with the next commit.
    @Test func channelOpenedByARefusedSendSurvivesReopening() async throws {
        let fixture = try HubFixture(.sqlite, configuration: HubConfiguration(rateLimit: HubRateLimit(messagesPerSecond: 1, burst: 1)))
        let alice = try fixture.hub.connect(user: "alice")
        _ = try await alice.send(OutgoingEnvelope(channel: .person("carol"), payload: text("spends the token")))
        await #expect(throws: ParleyError.self) { try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("refused"))) }
        await fixture.clock.advance(by: .seconds(1))
        let accepted = try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("accepted")))
        try fixture.hub.close()

        let reopened = try fixture.reopen()
        let history = try await reopened.connect(user: "bob").history(of: .person("alice"), after: 0, limit: 10)
        #expect(history.map(\.text) == ["accepted"])
        #expect(history.map(\.id) == [accepted.messageID])
    }

    @Test func failedCommitAnswersWithAStorageErrorAndDeliversNothing() async throws {
        let fixture = try HubFixture(.sqlite)
        let alice = try fixture.hub.connect(user: "alice")
        let (_, bob) = try await fixture.online("bob")
        _ = try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("fine")))
        // Break the store behind the hub's back, as a full or damaged disk would.
        try Connection(path: fixture.path).execute("DROP TABLE hub_messages")

        let doomed = OutgoingEnvelope(channel: .person("bob"), payload: text("lost"))
        for _ in 0..<2 {
            let error = await #expect(throws: ParleyError.self) { try await alice.send(doomed) }
            #expect(error?.code == .storage)
        }
        try await bob.waitForMessages(1)
        #expect(bob.messages.map(\.text) == ["fine"])
    }

    @Test func damagedRowIsAnErrorNotACrash() async throws {
        let fixture = try HubFixture(.sqlite)
        let alice = try fixture.hub.connect(user: "alice")
        _ = try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("fine")))
        try Connection(path: fixture.path).execute("UPDATE hub_messages SET payload = '{not json'")
        let error = await #expect(throws: ParleyError.self) { try await alice.history(of: .person("bob"), after: 0, limit: 10) }
        #expect(error?.code == .storage)
        #expect(error?.context == ["seq": "1", "column": "payload"])
        try Connection(path: fixture.path).execute("UPDATE hub_messages SET client_id = x'00'")
        let damaged = await #expect(throws: ParleyError.self) { try await alice.history(of: .person("bob"), after: 0, limit: 10) }
        #expect(damaged?.code == .storage)
        #expect(damaged?.context["seq"] == "1")
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
