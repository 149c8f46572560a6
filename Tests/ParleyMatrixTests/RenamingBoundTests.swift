import Foundation
import ParleyCore
import Synchronization
import Testing
import ParleyTesting
@testable import ParleyMatrix

/// `RenamingTransport` buffers at most its limit of renamed events, leaving the rest with the
/// transport underneath, and loses none.
@Suite struct RenamingBoundTests {
    /// A transport whose stream holds `count` messages from the start.
    struct Burst: Transport {
        let count: Int
        var userID: String { "@bot:localhost" }
        var payloadLimit: Int { 65_536 }
        var concurrentSends: Int { 1 }

        func connect() async throws -> AsyncStream<TransportEvent> {
            let (stream, continuation) = AsyncStream.makeStream(of: TransportEvent.self)
            for index in 0..<count {
                continuation.yield(.message(Envelope(id: "$\(index)", channel: .group("!r:localhost"), seq: Int64(index + 1),
                                                     clientMessageID: UUID(), sender: "@alice:localhost", timestamp: Date(),
                                                     payload: ["type": 1, "text": "m"])))
            }
            continuation.finish()
            return stream
        }

        func disconnect() async {}
        func send(_ message: OutgoingEnvelope) async throws -> SendReceipt { throw ParleyError(.notConnected, "fake") }
        func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] { [] }
        func setReaction(_ emoji: String, on messageID: String, in channel: Channel, added: Bool) async throws {}
        func prepareSends(to channels: [Channel]) async {}
        func history(of channel: Channel, after seq: Int64, limit: Int) async throws -> [Envelope] { [] }
        func profiles(of userIDs: [String]) async throws -> [Profile] { [] }
        func members(of channel: Channel) async throws -> [String] { [] }
    }

    @Test func aConsumerThatDoesNotReadHoldsTheRelayAtTheLimit() async throws {
        let relayed = Atomic(0)
        let renaming = RenamingTransport(base: Burst(count: 500), names: .init(groups: ["room": "!r:localhost"]),
                                         bufferLimit: 10, observe: { _ in relayed.add(1, ordering: .relaxed) })

        let stream = try await renaming.connect()
        try await waitUntil("the relay holding") { renaming.isHoldingBase }

        // One past the limit taken from the base, the rest left there.
        #expect(renaming.bufferedEvents == 11)
        #expect(relayed.load(ordering: .relaxed) == 11)
        let ids = try await withTimeout("reading", seconds: 15) {
            var ids: [String] = []
            for await event in stream {
                guard case .message(let envelope) = event else { continue }
                #expect(envelope.channel == .group("room"))
                ids.append(envelope.id)
            }
            return ids
        }
        #expect(ids == (0..<500).map { "$\($0)" })
    }
}
