import Foundation
import ParleyCore
import ParleyHub
import Synchronization

/// The bot's real hub transport that "crashes" the broadcast after `after` sends: from then
/// on each send still reaches the hub (the message is stored) but the run is cancelled and
/// the sender never hears back — the window between "sent" and "recorded".
final class CrashingTransport: ForwardingTransport {
    let base: any Transport
    let after: Int
    private let state = Mutex<(count: Int, task: Task<Void, Never>?, tripped: Bool)>((0, nil, false))

    init(base: HubTransport, after: Int) {
        self.base = base
        self.after = after
    }

    /// The task to cancel when the crash comes (it may come before this is called).
    func arm(_ task: Task<Void, Never>) {
        let cancelNow = state.withLock { state -> Bool in
            state.task = task
            return state.tripped
        }
        if cancelNow { task.cancel() }
    }

    func send(_ message: OutgoingEnvelope) async throws -> SendReceipt {
        let receipt = try await base.send(message)
        let task = state.withLock { state -> Task<Void, Never>? in
            state.count += 1
            guard state.count >= after else { return nil }
            state.tripped = true
            return state.task
        }
        guard state.withLock({ $0.tripped }) else { return receipt }
        task?.cancel()
        throw CancellationError()
    }

    /// One by one through `send` above, so every message is counted.
    func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] {
        await sendEachInOrder(messages)
    }
}
