import Foundation
import ParleyCore
import ParleyHub
import Testing

@Suite struct HubConcurrencyTests {
    /// 10 clients send 100 messages each at once: every message arrives exactly once,
    /// seqs have no gap, and each sender's messages keep their order.
    @Test(arguments: Storage.allCases)
    func thousandConcurrentSendsArriveExactlyOnceInPerSenderOrder(storage: Storage) async throws {
        let (fixture, received) = try await Self.tenSendersAtOnce(storage, expecting: 1000) { transport in
            for index in 0..<100 {
                let payload: JSONValue = ["type": 1, "text": .string("\(transport.userID)#\(index)"), "index": .int(Int64(index))]
                _ = try await transport.send(OutgoingEnvelope(channel: .group("all"), payload: payload))
            }
        }
        #expect(Set(received.map(\.clientMessageID)).count == 1000)
        Self.expectEachSendersOrder(received, count: 100)
        let stored = try fixture.hub.messages(in: .group("all"), seenBy: "reader")
        #expect(stored.map(\.id) == received.map(\.id))
    }

    /// The same with batches: 10 clients × 10 batches of 10, mixed with single sends.
    @Test(arguments: Storage.allCases)
    func concurrentBatchesArriveExactlyOnceInPerSenderOrder(storage: Storage) async throws {
        let (fixture, received) = try await Self.tenSendersAtOnce(storage, expecting: 1100) { transport in
            for round in 0..<10 {
                let batch = (0..<10).map { offset -> OutgoingEnvelope in
                    OutgoingEnvelope(channel: .group("all"), payload: ["type": 1, "index": .int(Int64(round * 11 + offset))])
                }
                for result in await transport.sendBatch(batch) { _ = try result.get() }
                _ = try await transport.send(OutgoingEnvelope(channel: .group("all"), payload: ["type": 1, "index": .int(Int64(round * 11 + 10))]))
            }
        }
        #expect(Set(received.map(\.clientMessageID)).count == 1100)
        Self.expectEachSendersOrder(received, count: 110)
        let stored = try fixture.hub.messages(in: .group("all"), seenBy: "reader")
        #expect(stored.map(\.id) == received.map(\.id))
    }

    static let senders = (0..<10).map { "sender\($0)" }

    /// Ten senders run `send` at once into the group "all"; returns the fixture and what its
    /// reader got, after checking the seqs have no gap.
    static func tenSendersAtOnce(
        _ storage: Storage, expecting count: Int, send: @escaping @Sendable (HubTransport) async throws -> Void
    ) async throws -> (HubFixture, [Envelope]) {
        let fixture = try HubFixture(storage, users: senders + ["reader"])
        try fixture.hub.createGroup("all", members: senders + ["reader"])
        let (_, reader) = try await fixture.online("reader")
        let transports = try senders.map { try fixture.hub.connect(user: $0) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for transport in transports { group.addTask { try await send(transport) } }
            try await group.waitForAll()
        }
        let received = try await reader.waitForMessages(count)
        #expect(received.map(\.seq) == Array(1...Int64(count)))
        return (fixture, received)
    }

    /// Each sender's messages arrived in the order of their `index`, `count` of them.
    static func expectEachSendersOrder(_ received: [Envelope], count: Int) {
        for sender in senders {
            let indexes = received.filter { $0.sender == sender }.compactMap { $0.payload["index"]?.intValue }
            #expect(indexes == Array(0..<Int64(count)), "\(sender)")
        }
    }
}
