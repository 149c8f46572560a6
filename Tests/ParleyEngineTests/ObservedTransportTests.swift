import Foundation
import ParleyCore
import ParleyHub
import Testing
@testable import ParleyBots

@Suite struct ObservedTransportTests {
    @Test func batchSendsGoToTheServersOwnBatchSend() async throws {
        let hub = try Hub()
        for user in ["bot", "alice", "bob"] { try hub.addUser(Profile(id: user)) }
        let observed = ObservedTransport(try hub.connect(user: "bot"), deliveredEventCount: nil)
        let messages = ["alice", "bob", "alice"].map { OutgoingEnvelope(channel: .person($0), payload: ["type": 1, "text": "hi"]) }
        let receipts = try await observed.sendBatch(messages).map { try $0.get() }
        #expect(receipts.map(\.seq) == [1, 1, 2])
        // The hub's batch send takes the time once for the whole batch; sent one by one
        // (the protocol's default), each message would read the clock again.
        #expect(Set(receipts.map(\.timestamp)).count == 1)
    }

    @Test func eventsArriveInBatchesAndAreCounted() async throws {
        let hub = try Hub()
        for user in ["bot", "alice"] { try hub.addUser(Profile(id: user)) }
        let inner = try hub.connect(user: "bot")
        let observed = ObservedTransport(inner, deliveredEventCount: { inner.deliveredEventCount })
        let batches = try await observed.connectBatched()
        let alice = try hub.connect(user: "alice")
        for index in 1...3 { _ = try await alice.send(OutgoingEnvelope(channel: .person("bot"), payload: ["type": 1, "text": .string("m\(index)")])) }
        var iterator = batches.makeAsyncIterator()
        var events: [TransportEvent] = []
        // Bounded: the connection event and three messages, in at most four batches.
        for _ in 0..<4 where events.count < 4 {
            guard let batch = await iterator.next() else { break }
            events += batch
        }
        #expect(events.count == 4)
        #expect(events.first == .connection(.connected))
        await observed.waitUntilRelayed()
        #expect(observed.isCaughtUp)
    }
}

