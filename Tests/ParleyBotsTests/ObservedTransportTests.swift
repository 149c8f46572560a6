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

    /// A hub with `bot` and `alice`: the bot's transport (as `wrap` shows it) observed and
    /// connected, and a transport for alice.
    static func observedBot(wrap: (HubTransport) -> any Transport = { $0 }) async throws
        -> (inner: HubTransport, observed: ObservedTransport, batches: AsyncStream<[TransportEvent]>, alice: HubTransport) {
        let bot = try unconnectedBot(wrap: wrap)
        return (bot.inner, bot.observed, try await bot.observed.connectBatched(), bot.alice)
    }

    /// Like `observedBot`, the bot's transport not connected yet.
    static func unconnectedBot(wrap: (HubTransport) -> any Transport = { $0 }) throws
        -> (inner: HubTransport, observed: ObservedTransport, alice: HubTransport) {
        let hub = try Hub()
        for user in ["bot", "alice"] { try hub.addUser(Profile(id: user)) }
        let inner = try hub.connect(user: "bot")
        return (inner, ObservedTransport(wrap(inner), deliveredEventCount: { inner.deliveredEventCount }), try hub.connect(user: "alice"))
    }

    /// Takes `count` events from `batches` (bounded: at most `count` batches).
    static func take(_ count: Int, from batches: AsyncStream<[TransportEvent]>) async -> [TransportEvent] {
        var iterator = batches.makeAsyncIterator()
        return await take(count) { await iterator.next() }
    }

    /// Takes `count` events from batches `next` gives (bounded: at most `count` batches).
    static func take(_ count: Int, next: () async -> [TransportEvent]?) async -> [TransportEvent] {
        var events: [TransportEvent] = []
        for _ in 0..<count where events.count < count {
            guard let batch = await next() else { break }
            events += batch
        }
        return events
    }

    /// Taken by the consumer (`connectPulled`, what a `ChatClient` uses) as from the stream,
    /// counted as the hub counts them.
    @Test func pulledBatchesAreCountedAsStreamedOnes() async throws {
        let (inner, observed, alice) = try Self.unconnectedBot()
        let pulled = try await observed.connectPulled()
        _ = try await alice.send(Self.text("m1"))
        let events = await Self.take(2) { await pulled.nextBatch() }
        #expect(events.count == 2)
        #expect(events.first == .connection(.connected))
        #expect(inner.deliveredEventCount == 2)
        #expect(observed.relayedEventCount == 2)
        #expect(observed.isCaughtUp)
        await observed.waitUntilRelayed()
    }

    /// A new connection's events add to the count: what the client processed over both
    /// connections is compared with it.
    @Test func theCountGoesOnAcrossConnections() async throws {
        let (inner, observed, alice) = try Self.unconnectedBot()
        let first = try await observed.connectPulled()
        _ = try await alice.send(Self.text("m1"))
        #expect(await Self.take(2) { await first.nextBatch() }.count == 2)
        let second = try await observed.connectPulled()
        _ = try await alice.send(Self.text("m2"))
        // The new stream's connection event, its catch-up (if any), then m2.
        var taken = 0
        for _ in 0..<4 {
            guard let batch = await second.nextBatch() else { break }
            taken += batch.count
            if batch.contains(where: { if case .message(let envelope) = $0 { envelope.payload["text"] == "m2" } else { false } }) { break }
        }
        #expect(taken >= 2)
        #expect(observed.relayedEventCount == 2 + taken)
        #expect(observed.relayedEventCount == inner.deliveredEventCount)
        await observed.waitUntilRelayed()
    }

    static func text(_ text: String) -> OutgoingEnvelope {
        OutgoingEnvelope(channel: .person("bot"), payload: ["type": 1, "text": .string(text)])
    }

    @Test func aBacklogIsHandedOverInPartsInOrderAndCounted() async throws {
        let bot = try await Self.observedBot()
        let count = ObservedTransport.largestBatch * 2 + 100
        for index in 0..<count { _ = try await bot.alice.send(Self.text("m\(index)")) }
        var iterator = bot.batches.makeAsyncIterator()
        var texts: [String] = []
        var sizes: [Int] = []
        // Bounded: the connection event and `count` messages, in at most `count + 1` parts.
        for _ in 0...count where texts.count < count {
            guard let batch = await iterator.next() else { break }
            sizes.append(batch.count)
            for case .message(let envelope) in batch { texts.append(envelope.payload["text"]?.stringValue ?? "?") }
        }
        #expect(texts == (0..<count).map { "m\($0)" })
        #expect(sizes.allSatisfy { $0 <= ObservedTransport.largestBatch })
        #expect(bot.observed.isCaughtUp)
    }

    @Test func aTransportWithoutBatchesIsRelayedAndCounted() async throws {
        let bot = try await Self.observedBot(wrap: { SingleEventTransport(base: $0) })
        for index in 1...2 { _ = try await bot.alice.send(Self.text("m\(index)")) }
        #expect(await Self.take(3, from: bot.batches).count == 3)
        await bot.observed.waitUntilRelayed()
        #expect(bot.observed.isCaughtUp)
    }
}

/// The hub's transport seen through `Transport` alone (no batched stream).
final class SingleEventTransport: ForwardingTransport {
    let base: any Transport
    init(base: any Transport) { self.base = base }
    func send(_ message: OutgoingEnvelope) async throws -> SendReceipt { try await base.send(message) }
    func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] { await base.sendBatch(messages) }
}
