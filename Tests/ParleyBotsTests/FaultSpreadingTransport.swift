import Foundation
import ParleyCore
import ParleyHub
import Synchronization

/// The bot's real hub transport, with the hub's own fault injection armed before every
/// `every`-th send: alternately a failed send (`networkUnavailable`) and a lost receipt
/// (stored and delivered, but the sender hears `networkUnavailable`). Spreads the faults
/// over the whole broadcast instead of bunching them at its start.
final class FaultSpreadingTransport: ForwardingTransport {
    let base: any Transport
    let hub: Hub
    let every: Int
    private let count = Mutex(0)

    init(base: HubTransport, hub: Hub, every: Int) {
        self.base = base
        self.hub = hub
        self.every = every
    }

    /// Faults armed so far.
    var injected: Int { count.withLock { $0 / every } }

    func send(_ message: OutgoingEnvelope) async throws -> SendReceipt {
        let number = count.withLock { count in
            count += 1
            return count
        }
        if number % every == 0 {
            if (number / every) % 2 == 0 {
                hub.failNextSends(1, with: ParleyError(.networkUnavailable, "injected"), from: userID)
            } else {
                hub.loseNextAcks(1, from: userID)
            }
        }
        return try await base.send(message)
    }

    /// One by one through `send` above, so every message is subject to the faults.
    func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] {
        await sendEachInOrder(messages)
    }
}
