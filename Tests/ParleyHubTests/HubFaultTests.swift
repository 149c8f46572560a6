import Foundation
import ParleyTesting
import ParleyCore
import ParleyHub
import Testing

@Suite struct HubFaultTests {
    @Test(arguments: Storage.allCases)
    func failNextSendsWithAGivenError(storage: Storage) async throws {
        let fixture = try HubFixture(storage)
        let alice = try fixture.hub.connect(user: "alice")
        let bob = try fixture.hub.connect(user: "bob")
        fixture.hub.failNextSends(2, with: ParleyError(.rateLimited, "busy", retryAfter: .seconds(2)), from: "alice")
        let message = OutgoingEnvelope(channel: .person("bob"), payload: text("retry me"))
        for _ in 0..<2 {
            let error = await #expect(throws: ParleyError.self) { try await alice.send(message) }
            #expect(error?.code == .rateLimited)
            #expect(error?.retryAfter == .seconds(2))
        }
        _ = try await bob.send(OutgoingEnvelope(channel: .person("alice"), payload: text("bob is not affected")))
        #expect(try await alice.send(message).seq == 2)
        #expect(try fixture.hub.storedCount(of: message.clientMessageID) == 1)

        fixture.hub.failNextSends(1, with: ParleyError(.networkUnavailable, "offline"))
        let offline = await #expect(throws: ParleyError.self) { try await bob.send(message) }
        #expect(offline?.code == .networkUnavailable)
    }

    @Test(arguments: Storage.allCases)
    func channelFailuresArePermanentUntilCleared(storage: Storage) async throws {
        let fixture = try HubFixture(storage)
        let alice = try fixture.hub.connect(user: "alice")
        fixture.hub.failSends(to: .person("bob"), with: ParleyError(.permissionDenied, "blocked"))
        for _ in 0..<3 {
            let error = await #expect(throws: ParleyError.self) {
                try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("x")))
            }
            #expect(error?.code == .permissionDenied)
        }
        _ = try await alice.send(OutgoingEnvelope(channel: .person("carol"), payload: text("fine")))
        fixture.hub.failSends(to: .person("bob"), with: nil)
        #expect(try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("x"))).seq == 1)
    }

    @Test(arguments: Storage.allCases)
    func lostAckIsRepairedByAnIdempotentResend(storage: Storage) async throws {
        let fixture = try HubFixture(storage)
        let alice = try fixture.hub.connect(user: "alice")
        let (_, bob) = try await fixture.online("bob")
        fixture.hub.loseNextAcks(1, from: "alice")
        let message = OutgoingEnvelope(channel: .person("bob"), payload: text("did it arrive?"))
        let error = await #expect(throws: ParleyError.self) { try await alice.send(message) }
        #expect(error?.code == .networkUnavailable)

        let receipt = try await alice.send(message)
        #expect(receipt.seq == 1)
        _ = try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("marker")))
        #expect(try await bob.waitForMessages(2).map(\.text) == ["did it arrive?", "marker"])
        #expect(try fixture.hub.storedCount(of: message.clientMessageID) == 1)
    }

    @Test(arguments: Storage.allCases)
    func delayedSendCompletesWhenTheClockAdvances(storage: Storage) async throws {
        let fixture = try HubFixture(storage)
        let alice = try fixture.hub.connect(user: "alice")
        fixture.hub.delaySends(by: .seconds(3))
        let start = fixture.clock.now()
        let send = Task { try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("slow"))) }
        try await waitUntilParked(fixture.clock)
        #expect(try fixture.hub.messages(in: .person("bob"), seenBy: "alice").isEmpty)
        await fixture.clock.advance(by: .seconds(3))
        let receipt = try await send.value
        #expect(receipt.timestamp == start.addingTimeInterval(3))
        fixture.hub.clearFaults()
        _ = try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("fast")))
    }

    @Test(arguments: Storage.allCases)
    func droppedConnectionFailsSendsInFlightUntilReconnect(storage: Storage) async throws {
        let fixture = try HubFixture(storage)
        let (alice, aliceEvents) = try await fixture.online("alice")
        let (_, bob) = try await fixture.online("bob")
        fixture.hub.delaySends(by: .seconds(10))
        let inFlight = OutgoingEnvelope(channel: .person("bob"), payload: text("in flight"))
        let send = Task { try await alice.send(inFlight) }
        try await waitUntilParked(fixture.clock)

        fixture.hub.dropConnection(of: "alice")
        let error = await #expect(throws: ParleyError.self) { try await send.value }
        #expect(error?.code == .networkUnavailable)
        try await aliceEvents.waitForFinish()
        #expect(aliceEvents.events.last == .connection(.disconnected))
        #expect(!fixture.hub.isOnline("alice"))
        fixture.hub.clearFaults()
        let refused = await #expect(throws: ParleyError.self) { try await alice.send(inFlight) }
        #expect(refused?.code == .networkUnavailable)
        let unreadable = await #expect(throws: ParleyError.self) { try await alice.history(of: .person("bob"), after: 0, limit: 10) }
        #expect(unreadable?.code == .networkUnavailable)
        #expect(try fixture.hub.storedCount(of: inFlight.clientMessageID) == 0)

        // Bob's message while alice is away comes in her catch-up.
        _ = try await fixture.hub.connect(user: "bob").send(OutgoingEnvelope(channel: .person("alice"), payload: text("you there?")))
        let again = EventRecorder(try await alice.connect())
        #expect(try await again.waitForMessages(1).map(\.text) == ["you there?"])
        #expect(try await alice.send(inFlight).seq == 2)
        // Bob's open stream also shows what his other transport sent (another device).
        #expect(try await bob.waitForMessages(2).map(\.text) == ["you there?", "in flight"])
        await fixture.clock.advance(by: .seconds(10))  // lets the parked sleeper go
    }
}
