import Foundation
import ParleyCore
import ParleyHub
import Testing

@Suite struct HubGroupTests {
    @Test(arguments: Storage.allCases)
    func membershipChangesAreAnnounced(storage: Storage) async throws {
        let fixture = try HubFixture(storage, users: ["alice", "bob", "carol", "dave"])
        let (aliceTransport, alice) = try await fixture.online("alice")
        let (_, carol) = try await fixture.online("carol")
        try fixture.hub.createGroup("team", name: "Team", members: ["alice", "bob"], by: "alice")
        try fixture.hub.addMember("carol", to: "team", by: "alice")
        try fixture.hub.addMember("carol", to: "team", by: "alice")  // no-op
        try fixture.hub.removeMember("bob", from: "team", by: "alice")
        try fixture.hub.removeMember("carol", from: "team")

        try await alice.wait { events, _ in events.count { if case .membership = $0 { true } else { false } } >= 4 }
        #expect(alice.memberships == [
            MembershipEvent(channel: .group("team"), user: "alice", change: .joined, by: "alice"),
            MembershipEvent(channel: .group("team"), user: "carol", change: .joined, by: "alice"),
            MembershipEvent(channel: .group("team"), user: "bob", change: .kicked, by: "alice"),
            MembershipEvent(channel: .group("team"), user: "carol", change: .left, by: nil),
        ])
        try await carol.wait { events, _ in events.count { if case .membership = $0 { true } else { false } } >= 3 }
        #expect(carol.memberships.map(\.change) == [.joined, .kicked, .left])
        #expect(try await aliceTransport.members(of: .group("team")) == ["alice"])
        #expect(try await aliceTransport.members(of: .person("dave")) == ["alice", "dave"])

        let dave = try fixture.hub.connect(user: "dave")
        let denied = await #expect(throws: ParleyError.self) { try await dave.members(of: .group("team")) }
        #expect(denied?.code == .permissionDenied)
        #expect(throws: ParleyError.self) { try fixture.hub.createGroup("team", members: ["alice"]) }
        #expect(throws: ParleyError.self) { try fixture.hub.createGroup("other", members: ["alice", "nobody"]) }
        #expect(throws: ParleyError.self) { try fixture.hub.addMember("nobody", to: "team") }
        #expect(throws: ParleyError.self) { try fixture.hub.addMember("dave", to: "nowhere") }
    }

    @Test(arguments: Storage.allCases)
    func newMemberGetsOnlyMessagesAfterJoiningButCanReadHistory(storage: Storage) async throws {
        let fixture = try HubFixture(storage)
        try fixture.hub.createGroup("team", members: ["alice", "bob"])
        let alice = try fixture.hub.connect(user: "alice")
        _ = try await alice.send(OutgoingEnvelope(channel: .group("team"), payload: text("before")))
        try fixture.hub.addMember("carol", to: "team")
        _ = try await alice.send(OutgoingEnvelope(channel: .group("team"), payload: text("after")))

        let (carolTransport, carol) = try await fixture.online("carol")
        _ = try await alice.send(OutgoingEnvelope(channel: .group("team"), payload: text("live")))
        #expect(try await carol.waitForMessages(2).map(\.text) == ["after", "live"])
        #expect(try await carolTransport.history(of: .group("team"), after: 0, limit: 10).map(\.text) == ["before", "after", "live"])

        try fixture.hub.removeMember("carol", from: "team")
        let removed = await #expect(throws: ParleyError.self) {
            try await carolTransport.send(OutgoingEnvelope(channel: .group("team"), payload: text("still here?")))
        }
        #expect(removed?.code == .permissionDenied)
    }

    @Test func profilesComeFromTheHubUsers() async throws {
        let fixture = try HubFixture(.memory)
        try fixture.hub.addUser(Profile(id: "alice", name: "Alice Liddell", email: "alice@example.org"))
        let bob = try fixture.hub.connect(user: "bob")
        let profiles = try await bob.profiles(of: ["alice", "nobody", "carol"])
        #expect(profiles == [Profile(id: "alice", name: "Alice Liddell", email: "alice@example.org"), Profile(id: "carol", name: "Carol")])
        let tooMany = await #expect(throws: ParleyError.self) { try await bob.profiles(of: (0...100).map { "u\($0)" }) }
        #expect(tooMany?.code == .invalidArgument)
        #expect(throws: ParleyError.self) { try fixture.hub.addUser(Profile(id: "")) }
    }
}
