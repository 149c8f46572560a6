import ParleyCore
import Synchronization

/// Wraps a bot's transport so the host can tell when every event the server sent has been
/// taken: the consumer takes the server's event queue directly (the hub's own, so no relay
/// task stands between them), counting events as it takes them. With the server's own count
/// (`deliveredEventCount`), "taken" needs no sleeping; the client's own count of events it
/// finished with (`ChatClient.waitUntilProcessed`) then tells when they were handled.
final class ObservedTransport: BatchedEventSource {
    private struct State {
        /// Events the consumer has taken, over every connection: the client takes them all
        /// (a taken batch is always handled), so its processed count reaches this.
        var relayed = 0
        var output: BatchQueue<TransportEvent>?
        /// The rest of a batch taken from the queue past `largestBatch` events.
        var held: ArraySlice<TransportEvent> = []
        var waiters = CountWaiters()
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

    /// The events one by one (the client takes `connectBatched()`).
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

    /// The events, a batch per take: one consumer wake-up carries everything the server
    /// handed over meanwhile. A server without a queue of its own is relayed into one.
    func connectBatched() async throws -> AsyncStream<[TransportEvent]> {
        let queue = try await openQueue()
        return AsyncStream(unfolding: { [weak self] in
            guard let self else { return await queue.next() }
            return await self.nextBatch(from: queue)
        })
    }

    /// Like `connectBatched()`, taken by the consumer on its own executor (what `ChatClient`
    /// uses), counted the same way.
    func connectPulled() async throws -> any EventBatchPuller {
        Batches(transport: self, queue: try await openQueue())
    }

    /// The batches of one connection, taken through `nextBatch(from:)`.
    private struct Batches: EventBatchPuller {
        let transport: ObservedTransport
        let queue: BatchQueue<TransportEvent>

        nonisolated(nonsending) func nextBatch() async -> [TransportEvent]? { await transport.nextBatch(from: queue) }
    }

    /// The server's queue of a new connection (the previous one's is finished).
    private func openQueue() async throws -> BatchQueue<TransportEvent> {
        let queue: BatchQueue<TransportEvent>
        if let batched = inner as? any BatchedEventSource {
            queue = try await batched.connectQueue()
        } else {
            // Pulled no faster than the consumer takes: a transport that bounds its stream (the
            // Matrix sync loop waits for room) is held back, not drained into memory here.
            queue = .relaying(elements: try await inner.connect())
        }
        let old = state.withLock { state -> BatchQueue<TransportEvent>? in
            defer {
                state.output = queue
                // Not taken, so not counted: the old connection's rest is not handed over.
                state.held = []
            }
            return state.output
        }
        old?.finish()
        return queue
    }

    /// The most events handed over at once: a backlog is decoded and dispatched a part at a
    /// time (the runtime can then hold the rest back), not all at once.
    static let largestBatch = 512

    /// The next part of what the queue had, counted as taken; nil once the stream ended.
    private nonisolated(nonsending) func nextBatch(from queue: BatchQueue<TransportEvent>) async -> [TransportEvent]? {
        let rest = state.withLock { state -> [TransportEvent]? in
            state.held.isEmpty || state.output !== queue ? nil : Self.cut(&state.held)
        }
        if let rest {
            took(rest)
            return rest
        }
        guard let taken = await queue.next() else {
            ended(queue)
            return nil
        }
        let batch = taken.count <= Self.largestBatch ? taken : state.withLock { state in
            state.held = taken[...]
            return Self.cut(&state.held)
        }
        took(batch)
        return batch
    }

    private static func cut(_ held: inout ArraySlice<TransportEvent>) -> [TransportEvent] {
        let part = Array(held.prefix(largestBatch))
        held = held.count > largestBatch ? held.dropFirst(largestBatch) : []
        return part
    }

    func disconnect() async {
        await inner.disconnect()
    }

    private func took(_ batch: [TransportEvent]) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.relayed += batch.count
            // The usual case: nobody waits for the count (only idle checks do).
            return state.waiters.reached(state.relayed)
        }
        for waiter in ready { waiter.resume() }
    }

    /// The stream of `queue` ended: nobody waits for its events any more.
    private func ended(_ queue: BatchQueue<TransportEvent>) {
        let all = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard state.output === queue else { return [] }
            state.output = nil
            return state.waiters.removeAll()
        }
        for waiter in all { waiter.resume() }
    }

    /// Returns once the consumer has taken every event the server delivered so far (at once
    /// when the server cannot count, the stream has ended, or the task is cancelled).
    func waitUntilRelayed() async {
        guard let deliveredEventCount else { return }
        let target = deliveredEventCount()
        let id = state.withLock { $0.waiters.newID() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let done = state.withLock { state in
                    if state.relayed >= target || state.output == nil || Task.isCancelled { return true }
                    state.waiters.add(id, target: target, continuation)
                    return false
                }
                if done { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.remove(id) }?.resume()
        }
    }

    /// Events the consumer has taken so far, over every connection.
    var relayedEventCount: Int { state.withLock { $0.relayed } }

    /// True when the server has delivered nothing the consumer has not taken.
    var isCaughtUp: Bool {
        guard let deliveredEventCount else { return true }
        let target = deliveredEventCount()
        return state.withLock { $0.relayed >= target }
    }

    func send(_ message: OutgoingEnvelope) async throws -> SendReceipt { try await inner.send(message) }

    /// The server's own batch send (one critical section on the hub, per-channel concurrency
    /// on Matrix), on the caller's executor as the protocol asks (no hop of its own).
    nonisolated(nonsending) func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] {
        await inner.sendBatch(messages)
    }

    func prepareSends(to channels: [Channel]) async { await inner.prepareSends(to: channels) }

    func setReaction(_ emoji: String, on messageID: String, in channel: Channel, added: Bool) async throws {
        try await inner.setReaction(emoji, on: messageID, in: channel, added: added)
    }

    func history(of channel: Channel, after seq: Int64, limit: Int) async throws -> [Envelope] {
        try await inner.history(of: channel, after: seq, limit: limit)
    }

    func profiles(of userIDs: [String]) async throws -> [Profile] { try await inner.profiles(of: userIDs) }

    func members(of channel: Channel) async throws -> [String] { try await inner.members(of: channel) }
}
