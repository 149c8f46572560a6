import Foundation
import ParleyTesting
import ParleyCore
import ParleyHub
import Testing

@Suite struct HubBatchTests {
    @Test(arguments: Storage.allCases)
    func batchIsStoredAndDeliveredInOrderAndIdempotent(storage: Storage) async throws {
        let fixture = try HubFixture(storage)
        let alice = try fixture.hub.connect(user: "alice")
        let (_, bob) = try await fixture.online("bob")
        let batch = (0..<5).map { OutgoingEnvelope(channel: $0 == 2 ? .person("carol") : .person("bob"), payload: text("b\($0)")) }

        let receipts = try await alice.sendBatch(batch).map { try $0.get() }
        #expect(receipts.map(\.seq) == [1, 2, 1, 3, 4])
        #expect(try await bob.waitForMessages(4).map(\.text) == ["b0", "b1", "b3", "b4"])
        #expect(try await alice.sendBatch(batch).map { try $0.get() } == receipts)
        for message in batch { #expect(try fixture.hub.storedCount(of: message.clientMessageID) == 1) }
        #expect(await alice.sendBatch([]).isEmpty)
    }

    @Test(arguments: Storage.allCases)
    func transientFailureStopsOnlyItsChannel(storage: Storage) async throws {
        let fixture = try HubFixture(storage, configuration: HubConfiguration(rateLimit: HubRateLimit(messagesPerSecond: 1, burst: 2)))
        let alice = try fixture.hub.connect(user: "alice")
        let targets: [Channel] = [.person("bob"), .person("carol"), .person("bob"), .person("carol"), .person("bob")]
        let results = await alice.sendBatch(targets.map { OutgoingEnvelope(channel: $0, payload: text("x")) })
        #expect(results.map { (try? $0.get())?.seq } == [1, 1, nil, nil, nil])
        #expect(results.map(Self.code) == [nil, nil, .rateLimited, .rateLimited, ParleyError.Code(rawValue: "notSent")])
        #expect(try fixture.hub.messages(in: .person("bob"), seenBy: "alice").count == 1)
    }

    @Test(arguments: Storage.allCases)
    func permanentFailuresStopNothing(storage: Storage) async throws {
        let fixture = try HubFixture(storage)
        let alice = try fixture.hub.connect(user: "alice", payloadLimit: 100)
        fixture.hub.failSends(to: .person("carol"), with: ParleyError(.permissionDenied, "blocked"))
        let results = await alice.sendBatch([
            OutgoingEnvelope(channel: .person("carol"), payload: text("c1")),
            OutgoingEnvelope(channel: .person("bob"), payload: text(String(repeating: "x", count: 200))),
            OutgoingEnvelope(channel: .person("bob"), payload: text("b2")),
            OutgoingEnvelope(channel: .person("nobody"), payload: text("n1")),
            OutgoingEnvelope(channel: .person("carol"), payload: text("c2")),
        ])
        #expect(results.map(Self.code) == [.permissionDenied, .messageTooLarge, nil, .notFound, .permissionDenied])
        #expect(try fixture.hub.messages(in: .person("bob"), seenBy: "alice").map(\.text) == ["b2"])
    }

    @Test(arguments: Storage.allCases)
    func lostAckInABatchStopsTheChannelAndResendRepairsIt(storage: Storage) async throws {
        let fixture = try HubFixture(storage)
        let alice = try fixture.hub.connect(user: "alice")
        fixture.hub.loseNextAcks(1)
        let batch = [OutgoingEnvelope(channel: .person("bob"), payload: text("1")), OutgoingEnvelope(channel: .person("bob"), payload: text("2"))]
        let first = await alice.sendBatch(batch)
        #expect(first.map(Self.code) == [.networkUnavailable, ParleyError.Code(rawValue: "notSent")])
        let second = try await alice.sendBatch(batch).map { try $0.get() }
        #expect(second.map(\.seq) == [1, 2])
        #expect(try fixture.hub.messages(in: .person("bob"), seenBy: "alice").map(\.text) == ["1", "2"])
    }

    @Test(arguments: Storage.allCases)
    func aDelayedBatchDroppedWhileHeldFailsEverySlotInOrder(storage: Storage) async throws {
        let fixture = try HubFixture(storage)
        let alice = try fixture.hub.connect(user: "alice", payloadLimit: 100)
        let events = EventRecorder(try await alice.connect())
        fixture.hub.delaySends(by: .seconds(10))
        let batch = [OutgoingEnvelope(channel: .person("bob"), payload: text("1")),
                     OutgoingEnvelope(channel: .person("bob"), payload: text(String(repeating: "x", count: 200))),
                     OutgoingEnvelope(channel: .person("carol"), payload: text("3"))]
        let send = Task { await alice.sendBatch(batch) }
        try await waitUntilParked(fixture.clock)
        fixture.hub.dropConnection(of: "alice")
        #expect(await send.value.map(Self.code) == [.networkUnavailable, .messageTooLarge, .networkUnavailable])
        try await events.waitForFinish()
        for message in batch { #expect(try fixture.hub.storedCount(of: message.clientMessageID) == 0) }
    }

    private static func code(_ result: Result<SendReceipt, ParleyError>) -> ParleyError.Code? {
        if case .failure(let error) = result { return error.code }
        return nil
    }
}
