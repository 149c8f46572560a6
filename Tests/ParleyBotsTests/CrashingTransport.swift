import Foundation
import ParleyCore
import ParleyHub
import Synchronization

/// The bot's real hub transport that "crashes" the broadcast after `after` sends. The crash
/// window from both sides: `.afterDelivery`, each send from then on still reaches the hub
/// (the message is stored) but the run is cancelled and the sender never hears back — between
/// "sent" and "recorded"; `.beforeDelivery`, the run is cancelled and each send from then on
/// fails before the hub gets it — a message that must stay pending, not be taken as sent.
final class CrashingTransport: ForwardingTransport {
    enum Moment: Sendable, CaseIterable { case afterDelivery, beforeDelivery }

    let base: any Transport
    let after: Int
    let moment: Moment
    private let state = Mutex<(count: Int, task: Task<Void, Never>?, tripped: Bool)>((0, nil, false))

    init(base: HubTransport, after: Int, moment: Moment = .afterDelivery) {
        self.base = base
        self.after = after
        self.moment = moment
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
        if moment == .beforeDelivery {
            // The `after`-th send and every later one fail before the hub sees them.
            let task = state.withLock { state -> Task<Void, Never>?? in
                if state.tripped { return .some(nil) }
                guard state.count + 1 >= after else { return .none }
                state.tripped = true
                return .some(state.task)
            }
            if let task {
                task?.cancel()
                throw CancellationError()
            }
        }
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
