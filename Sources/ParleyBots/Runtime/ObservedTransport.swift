import ParleyCore
import Synchronization

/// Wraps a bot's transport so the host can tell when every event the server sent has been
/// taken: it relays the event stream in batches (as the server hands them over), counting
/// events, and can put a marker into the relayed stream behind them. With the server's own
/// count (`deliveredEventCount`), "idle" needs no sleeping.
final class ObservedTransport: BatchedEventSource {
    /// The channel of marker events; never a real conversation.
    static let markerChannel = Channel(kind: .local, id: "parley.idle-marker")

    private struct State {
        var relayed = 0
        var output: BatchQueue<TransportEvent>?
        var relay: Task<Void, Never>?
        var waiters: [Int: (count: Int, continuation: CheckedContinuation<Void, Never>)] = [:]
        var nextWaiter = 0
    }

    let inner: any Transport
    /// How many events the server has handed this connection (nil when it cannot say).
    let deliveredEventCount: (@Sendable () -> Int)?
    private let state = Mutex(State())

    init(_ inner: any Transport, deliveredEventCount: (@Sendable () -> Int)?) {
        self.inner = inner
        self.deliveredEventCount = deliveredEventCount
    }

    var userID: String { inner.userID }
    var payloadLimit: Int { inner.payloadLimit }
    var concurrentSends: Int { inner.concurrentSends }

    /// The relayed events one by one (the client takes `connectBatched()`).
    func connect() async throws -> AsyncStream<TransportEvent> {
        let batches = try await connectBatched()
        let (stream, continuation) = AsyncStream.makeStream(of: TransportEvent.self, bufferingPolicy: .unbounded)
        let flattening = Task {
            for await batch in batches {
                for event in batch { continuation.yield(event) }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in flattening.cancel() }
        return stream
    }

    /// The relayed events, a batch per hop: one relay step and one consumer wake-up carry
    /// everything the server handed over meanwhile.
    func connectBatched() async throws -> AsyncStream<[TransportEvent]> {
        let source: AsyncStream<[TransportEvent]>
        if let batched = inner as? any BatchedEventSource {
            source = try await batched.connectBatched()
        } else {
            let single = try await inner.connect()
            source = AsyncStream { continuation in
                let task = Task {
                    for await event in single { continuation.yield([event]) }
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        }
        let output = BatchQueue<TransportEvent>()
        let relay = Task { [weak self] in
            for await batch in source {
                output.push(contentsOf: batch)
                self?.count(batch.count)
            }
            output.finish()
            self?.releaseWaiters()
        }
        let old = state.withLock { state -> (BatchQueue<TransportEvent>?, Task<Void, Never>?) in
            defer {
                state.output = output
                state.relay = relay
            }
            return (state.output, state.relay)
        }
        old.1?.cancel()
        old.0?.finish()
        return output.stream()
    }

    func disconnect() async {
        await inner.disconnect()
    }

    private func count(_ events: Int) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.relayed += events
            // The usual case: nobody waits for the count (only idle checks do).
            guard !state.waiters.isEmpty else { return [] }
            let ready = state.waiters.filter { $0.value.count <= state.relayed }
            for id in ready.keys { state.waiters.removeValue(forKey: id) }
            return ready.values.map(\.continuation)
        }
        for waiter in ready { waiter.resume() }
    }

    private func releaseWaiters() {
        let all = state.withLock { state in
            defer { state.waiters.removeAll() }
            return state.waiters.values.map(\.continuation)
        }
        for waiter in all { waiter.resume() }
    }

    /// Returns once the relay has taken every event the server delivered so far (at once
    /// when the server cannot count, the stream has ended, or the task is cancelled).
    func waitUntilRelayed() async {
        guard let deliveredEventCount else { return }
        let target = deliveredEventCount()
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let done = state.withLock { state in
                    if state.relayed >= target || state.output == nil || state.relay == nil || Task.isCancelled { return true }
                    state.waiters[id] = (target, continuation)
                    return false
                }
                if done { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }

    /// True when the server has delivered nothing the relay has not taken.
    var isCaughtUp: Bool {
        guard let deliveredEventCount else { return true }
        let target = deliveredEventCount()
        return state.withLock { $0.relayed >= target }
    }

    /// Puts marker `number` into the relayed stream, behind every event relayed so far.
    /// Returns false if there is no stream.
    func sendMarker(_ number: Int) -> Bool {
        let event = TransportEvent.membership(MembershipEvent(channel: Self.markerChannel, user: String(number), change: .joined))
        return state.withLock { state in
            guard let output = state.output else { return false }
            return output.push(event)
        }
    }

    func send(_ message: OutgoingEnvelope) async throws -> SendReceipt { try await inner.send(message) }

    /// The server's own batch send (one critical section on the hub, per-channel concurrency
    /// on Matrix).
    func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] {
        await inner.sendBatch(messages)
    }

    func setReaction(_ emoji: String, on messageID: String, in channel: Channel, added: Bool) async throws {
        try await inner.setReaction(emoji, on: messageID, in: channel, added: added)
    }

    func history(of channel: Channel, after seq: Int64, limit: Int) async throws -> [Envelope] {
        try await inner.history(of: channel, after: seq, limit: limit)
    }

    func profiles(of userIDs: [String]) async throws -> [Profile] { try await inner.profiles(of: userIDs) }

    func members(of channel: Channel) async throws -> [String] { try await inner.members(of: channel) }
}
