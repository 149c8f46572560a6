import ParleyCore
import Synchronization

/// Passes everything to `base`, counting the sends the server refused with `rateLimited`
/// (proof that a test really ran into the homeserver's limit) and the most sends in flight.
/// A batch goes room by room, `concurrentRooms` at once, as `MatrixTransport.sendBatch` does,
/// but through this wrapper's `send` so every request is counted.
final class RateLimitCounter: ForwardingTransport {
    let base: any Transport
    let concurrentRooms: Int
    let refused = Atomic<Int>(0)
    let inFlight = Atomic<Int>(0)
    let mostInFlight = Atomic<Int>(0)

    init(_ base: any Transport, concurrentRooms: Int) {
        self.base = base
        self.concurrentRooms = concurrentRooms
    }

    func send(_ message: OutgoingEnvelope) async throws -> SendReceipt {
        let now = inFlight.add(1, ordering: .sequentiallyConsistent).newValue
        mostInFlight.max(now, ordering: .sequentiallyConsistent)
        defer { inFlight.subtract(1, ordering: .sequentiallyConsistent) }
        do {
            return try await base.send(message)
        } catch let error as ParleyError where error.code == .rateLimited {
            refused.add(1, ordering: .relaxed)
            throw error
        }
    }

    func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] {
        await sendBatchByChannel(messages, concurrentChannels: concurrentRooms)
    }
}
