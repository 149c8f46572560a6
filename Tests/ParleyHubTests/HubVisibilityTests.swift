import Foundation
import ParleyCore
import ParleyHub
import Testing

@Suite struct HubVisibilityTests {
    @Test(arguments: Storage.allCases)
    func membersNotListedNeverSeeTheMessage(storage: Storage) async throws {
        let fixture = try HubFixture(storage)
        try fixture.hub.createGroup("team", members: ["alice", "bob", "carol"])
        let alice = try fixture.hub.connect(user: "alice")
        let (_, bob) = try await fixture.online("bob")
        let carolTransport = try fixture.hub.connect(user: "carol")  // offline: catches up later

        _ = try await alice.send(OutgoingEnvelope(channel: .group("team"), payload: text("for bob"), visibleTo: ["bob"]))
        _ = try await alice.send(OutgoingEnvelope(channel: .group("team"), payload: text("for all")))

        #expect(try await bob.waitForMessages(2).map(\.text) == ["for bob", "for all"])
        let carol = EventRecorder(try await carolTransport.connect())
        #expect(try await carol.waitForMessages(1).map(\.text) == ["for all"])
        #expect(try await carolTransport.history(of: .group("team"), after: 0, limit: 10).map(\.text) == ["for all"])
        #expect(try await alice.history(of: .group("team"), after: 0, limit: 10).map(\.text) == ["for bob", "for all"])
        // A late marker proves nothing else was on its way to carol.
        _ = try await alice.send(OutgoingEnvelope(channel: .group("team"), payload: text("marker")))
        #expect(try await carol.waitForMessages(2).map(\.text) == ["for all", "marker"])
    }

    /// With every member online the hub walks the members rather than the online users.
    @Test(arguments: Storage.allCases)
    func visibilityHoldsWhenEveryMemberIsOnline(storage: Storage) async throws {
        let fixture = try HubFixture(storage)
        try fixture.hub.createGroup("team", members: ["alice", "bob", "carol"])
        let (alice, aliceEvents) = try await fixture.online("alice")
        let (_, bob) = try await fixture.online("bob")
        let (_, carol) = try await fixture.online("carol")
        _ = try await alice.send(OutgoingEnvelope(channel: .group("team"), payload: text("for bob"), visibleTo: ["bob"]))
        _ = try await alice.send(OutgoingEnvelope(channel: .group("team"), payload: text("marker")))
        #expect(try await bob.waitForMessages(2).map(\.text) == ["for bob", "marker"])
        #expect(try await carol.waitForMessages(1).map(\.text) == ["marker"])
        #expect(aliceEvents.messages.isEmpty)
        #expect(fixture.hub.cursor(of: "carol", in: .group("team")) == 2)
        #expect(fixture.hub.cursor(of: "alice", in: .group("team")) == 2)
    }

    @Test(arguments: Storage.allCases)
    func historyLimitCountsOnlyVisibleMessages(storage: Storage) async throws {
        let fixture = try HubFixture(storage)
        try fixture.hub.createGroup("team", members: ["alice", "bob", "carol"])
        let alice = try fixture.hub.connect(user: "alice")
        let carol = try fixture.hub.connect(user: "carol")
        for index in 0..<6 {
            _ = try await alice.send(OutgoingEnvelope(channel: .group("team"), payload: text("m\(index)"), visibleTo: index % 2 == 0 ? ["bob"] : nil))
        }
        #expect(try await carol.history(of: .group("team"), after: 0, limit: 2).map(\.text) == ["m1", "m3"])
        #expect(try await carol.history(of: .group("team"), after: 4, limit: 2).map(\.text) == ["m5"])
    }

    @Test(arguments: Storage.allCases)
    func noPersistReachesOnlineMembersAndIsNeverStored(storage: Storage) async throws {
        let fixture = try HubFixture(storage)
        try fixture.hub.createGroup("team", members: ["alice", "bob", "carol"])
        let alice = try fixture.hub.connect(user: "alice")
        let (_, bob) = try await fixture.online("bob")
        let carolTransport = try fixture.hub.connect(user: "carol")

        let typing = OutgoingEnvelope(channel: .group("team"), payload: ["type": 1000, "typing": true], flags: .noPersist)
        let ephemeral = try await alice.send(typing)
        let stored = try await alice.send(OutgoingEnvelope(channel: .group("team"), payload: text("stored")))
        #expect(stored.seq > ephemeral.seq)
        #expect(try await alice.send(typing) == ephemeral)

        let received = try await bob.waitForMessages(2)
        #expect(received.map(\.flags) == [.noPersist, []])
        #expect(try fixture.hub.storedCount(of: typing.clientMessageID) == 0)
        #expect(try fixture.hub.messages(in: .group("team"), seenBy: "alice").map(\.text) == ["stored"])
        let carol = EventRecorder(try await carolTransport.connect())
        #expect(try await carol.waitForMessages(1).map(\.text) == ["stored"])
        #expect(try await carolTransport.history(of: .group("team"), after: 0, limit: 10).count == 1)
    }
}
