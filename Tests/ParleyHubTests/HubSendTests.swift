import Foundation
import ParleyCore
import ParleyHub
import Testing

@Suite struct HubSendTests {
    @Test(arguments: Storage.allCases)
    func personMessageReachesTheOtherSideWithIncreasingSeq(storage: Storage) async throws {
        let fixture = try HubFixture(storage)
        let alice = try fixture.hub.connect(user: "alice")
        let (_, bob) = try await fixture.online("bob")

        let first = try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("hi")))
        let second = try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("there")))
        #expect(first.seq == 1)
        #expect(second.seq == 2)
        #expect(first.messageID != second.messageID)
        #expect(first.timestamp == fixture.clock.now())

        let received = try await bob.waitForMessages(2)
        #expect(received.map(\.channel) == [.person("alice"), .person("alice")])
        #expect(received.map(\.sender) == ["alice", "alice"])
        #expect(received.map(\.text) == ["hi", "there"])
        #expect(received.map(\.id) == [first.messageID, second.messageID])
        #expect(bob.events.first == .connection(.connected))

        let history = try await alice.history(of: .person("bob"), after: 0, limit: 10)
        #expect(history.map(\.channel) == [.person("bob"), .person("bob")])
        #expect(history.map(\.seq) == [1, 2])
        #expect(try await alice.history(of: .person("bob"), after: 1, limit: 10).map(\.seq) == [2])
        #expect(try await alice.history(of: .person("bob"), after: 0, limit: 1).map(\.seq) == [1])
    }

    @Test(arguments: Storage.allCases)
    func resendWithTheSameClientMessageIDReturnsTheFirstReceipt(storage: Storage) async throws {
        let fixture = try HubFixture(storage)
        let alice = try fixture.hub.connect(user: "alice")
        let (_, bob) = try await fixture.online("bob")
        let message = OutgoingEnvelope(channel: .person("bob"), payload: text("once"))

        let first = try await alice.send(message)
        await fixture.clock.advance(by: .seconds(5))
        let again = try await alice.send(message)
        let marker = try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("marker")))

        #expect(again == first)
        #expect(marker.seq == 2)
        #expect(try fixture.hub.storedCount(of: message.clientMessageID) == 1)
        let received = try await bob.waitForMessages(2)
        #expect(received.map(\.text) == ["once", "marker"])
    }

    @Test(arguments: Storage.allCases)
    func addressingErrorsHaveTheirCodes(storage: Storage) async throws {
        let fixture = try HubFixture(storage)
        try fixture.hub.createGroup("team", members: ["alice", "bob"])
        let carol = try fixture.hub.connect(user: "carol")
        let cases: [(Channel, ParleyError.Code)] = [
            (.person("nobody"), .notFound),
            (.group("nowhere"), .notFound),
            (.group("team"), .permissionDenied),
            (Channel(kind: .local, id: "notes"), .invalidArgument),
        ]
        for (channel, code) in cases {
            let error = await #expect(throws: ParleyError.self) {
                try await carol.send(OutgoingEnvelope(channel: channel, payload: text("x")))
            }
            #expect(error?.code == code, "\(channel)")
            #expect(error?.context["channel"] == channel.target)
        }
        #expect(throws: ParleyError(.notFound, "no such user", context: ["user": "mallory"])) {
            try fixture.hub.connect(user: "mallory")
        }
        let denied = await #expect(throws: ParleyError.self) {
            try await carol.history(of: .group("team"), after: 0, limit: 10)
        }
        #expect(denied?.code == .permissionDenied)
    }

    @Test(arguments: Storage.allCases)
    func oversizedPayloadIsRefusedAndNothingIsStored(storage: Storage) async throws {
        let fixture = try HubFixture(storage)
        let alice = try fixture.hub.connect(user: "alice", payloadLimit: 64)
        let fits = text(String(repeating: "a", count: 64 - text("").jsonData().count))
        #expect(fits.jsonData().count == 64)
        _ = try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: fits))

        let tooBig = OutgoingEnvelope(channel: .person("bob"), payload: text(String(repeating: "a", count: 64)))
        let error = await #expect(throws: ParleyError.self) { try await alice.send(tooBig) }
        #expect(error?.code == .messageTooLarge)
        #expect(error?.context["limit"] == "64")
        #expect(try fixture.hub.storedCount(of: tooBig.clientMessageID) == 0)
        #expect(try fixture.hub.messages(in: .person("bob"), seenBy: "alice").count == 1)
        #expect(alice.payloadLimit == 64)
        #expect(try fixture.hub.connect(user: "bob").payloadLimit == 1 << 20)
    }
}
