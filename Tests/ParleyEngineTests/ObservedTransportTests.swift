import Foundation
import Synchronization
import ParleyCore
import ParleyHub
import Testing
@testable import ParleyBots

@Suite struct ObservedTransportTests {
    @Test func batchSendsGoToTheServersOwnBatchSend() async throws {
        let hub = try Hub()
        for user in ["bot", "alice", "bob"] { try hub.addUser(Profile(id: user)) }
        let inner = CallCountingTransport(try hub.connect(user: "bot"))
        let observed = ObservedTransport(inner, deliveredEventCount: nil)
        let messages = ["alice", "bob", "alice"].map { OutgoingEnvelope(channel: .person($0), payload: ["type": 1, "text": "hi"]) }
        let results = await observed.sendBatch(messages)
        #expect(results.compactMap { try? $0.get().seq } == [1, 1, 2])
        #expect(inner.calls.withLock { $0 } == ["sendBatch(3)"])
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

/// The hub's transport, recording which send entry points were used.
final class CallCountingTransport: Transport {
    let base: HubTransport
    let calls = Mutex<[String]>([])

    init(_ base: HubTransport) { self.base = base }

    var userID: String { base.userID }
    var payloadLimit: Int { base.payloadLimit }
    func connect() async throws -> AsyncStream<TransportEvent> { try await base.connect() }
    func disconnect() async { await base.disconnect() }

    func send(_ message: OutgoingEnvelope) async throws -> SendReceipt {
        calls.withLock { $0.append("send") }
        return try await base.send(message)
    }

    func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] {
        calls.withLock { $0.append("sendBatch(\(messages.count))") }
        return await base.sendBatch(messages)
    }

    func setReaction(_ emoji: String, on messageID: String, in channel: Channel, added: Bool) async throws {
        try await base.setReaction(emoji, on: messageID, in: channel, added: added)
    }

    func history(of channel: Channel, after seq: Int64, limit: Int) async throws -> [Envelope] {
        try await base.history(of: channel, after: seq, limit: limit)
    }

    func profiles(of userIDs: [String]) async throws -> [Profile] { try await base.profiles(of: userIDs) }
    func members(of channel: Channel) async throws -> [String] { try await base.members(of: channel) }
}
