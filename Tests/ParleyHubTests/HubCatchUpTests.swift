import Foundation
import ParleyCore
import ParleyHub
import Testing

@Suite struct HubCatchUpTests {
    @Test(arguments: Storage.allCases)
    func offlineMemberCatchesUpInSeqOrderThenGetsLiveMessages(storage: Storage) async throws {
        let fixture = try HubFixture(storage)
        try fixture.hub.createGroup("team", members: ["alice", "bob"])
        let alice = try fixture.hub.connect(user: "alice")
        let (bobTransport, firstSession) = try await fixture.online("bob")
        _ = try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("p1")))
        try await firstSession.waitForMessages(1)
        await bobTransport.disconnect()
        try await firstSession.waitForFinish()
        #expect(firstSession.events.last == .connection(.disconnected))
        #expect(!fixture.hub.isOnline("bob"))

        for index in 2...4 { _ = try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("p\(index)"))) }
        for index in 1...2 { _ = try await alice.send(OutgoingEnvelope(channel: .group("team"), payload: text("g\(index)"))) }
        #expect(fixture.hub.cursor(of: "bob", in: .person("alice")) == 1)

        let secondSession = EventRecorder(try await bobTransport.connect())
        _ = try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("live")))
        let received = try await secondSession.waitForMessages(6)
        // Seq order within each channel (channels come in creation order), live last.
        #expect(received.map(\.text) == ["g1", "g2", "p2", "p3", "p4", "live"])
        #expect(received.filter { $0.channel == .person("alice") }.map(\.seq) == [2, 3, 4, 5])
        #expect(received.filter { $0.channel == .group("team") }.map(\.seq) == [1, 2])
        #expect(fixture.hub.cursor(of: "bob", in: .person("alice")) == 5)
    }

    /// Sends racing a reconnect: whatever the interleaving, each message arrives once, in order.
    @Test(arguments: Storage.allCases)
    func reconnectDuringSendsHasNoGapAndNoDuplicate(storage: Storage) async throws {
        let fixture = try HubFixture(storage)
        let alice = try fixture.hub.connect(user: "alice")
        let bob = try fixture.hub.connect(user: "bob")
        let count = 300
        let recorders = try await withThrowingTaskGroup(of: [EventRecorder].self) { group in
            group.addTask {
                for index in 0..<count { _ = try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("\(index)"))) }
                return []
            }
            group.addTask {
                var recorders: [EventRecorder] = []
                for _ in 0..<20 {
                    recorders.append(EventRecorder(try await bob.connect()))
                    await Task.yield()
                }
                return recorders
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        // Each connect replaced the session before (which finished); the last one stays open.
        for recorder in recorders.dropLast() { try await recorder.waitForFinish() }
        let earlier = recorders.dropLast().flatMap { $0.messages.map(\.seq) }
        let last = try #require(recorders.last)
        let tail = try await last.waitForMessages(count - earlier.count)
        #expect(earlier + tail.map(\.seq) == Array(1...Int64(count)))
    }

    @Test(arguments: Storage.allCases)
    func slowConsumerIsDisconnectedAndCatchesUpWithoutLoss(storage: Storage) async throws {
        let fixture = try HubFixture(storage, configuration: HubConfiguration(eventBufferLimit: 4))
        let alice = try fixture.hub.connect(user: "alice")
        let bob = try fixture.hub.connect(user: "bob")
        let stream = try await bob.connect()  // nobody reads it yet
        for index in 1...10 { _ = try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("\(index)"))) }
        #expect(!fixture.hub.isOnline("bob"))

        let first = EventRecorder(stream)
        try await first.waitForFinish()
        let buffered = first.messages.map(\.seq)
        #expect(buffered == Array(1...Int64(buffered.count)))
        #expect(buffered.count < 10)
        let second = EventRecorder(try await bob.connect())
        let rest = try await second.waitForMessages(10 - buffered.count)
        #expect(buffered + rest.map(\.seq) == Array(1...10))
    }
}
