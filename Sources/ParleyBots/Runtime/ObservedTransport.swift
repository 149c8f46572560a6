import ParleyCore
import Synchronization

/// Wraps a bot's transport so the host can tell when every event the server sent has been
/// taken: the consumer takes the server's event queue directly (the hub's own, so no relay
/// task stands between them), counting events as it takes them, and a marker can be put
/// into that queue behind them. With the server's own count (`deliveredEventCount`), "idle"
/// needs no sleeping.
final class ObservedTransport: BatchedEventSource {
    /// The channel of marker events; never a real conversation.
    static let markerChannel = Channel(kind: .local, id: "parley.idle-marker")

    private struct State {
        /// Server events the consumer has taken (markers not counted).
        var relayed = 0
        /// Markers pushed and not yet taken: only while there are some is a batch scanned.
        var markersQueued = 0
        var output: BatchQueue<TransportEvent>?
        /// The rest of a batch taken from the queue past `largestBatch` events.
        var held: ArraySlice<TransportEvent> = []
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
                state.markersQueued = 0
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
            var events = batch.count
            if state.markersQueued > 0 {
                let markers = batch.count { if case .membership(let event) = $0 { event.channel == Self.markerChannel } else { false } }
                state.markersQueued -= markers
                events -= markers
            }
            state.relayed += events
            // The usual case: nobody waits for the count (only idle checks do).
            guard !state.waiters.isEmpty else { return [] }
            let ready = state.waiters.filter { $0.value.count <= state.relayed }
            for id in ready.keys { state.waiters.removeValue(forKey: id) }
            return ready.values.map(\.continuation)
        }
        for waiter in ready { waiter.resume() }
    }

    /// The stream of `queue` ended: nobody waits for its events any more.
    private func ended(_ queue: BatchQueue<TransportEvent>) {
        let all = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard state.output === queue else { return [] }
            state.output = nil
            defer { state.waiters.removeAll() }
            return state.waiters.values.map(\.continuation)
        }
        for waiter in all { waiter.resume() }
    }

    /// Returns once the consumer has taken every event the server delivered so far (at once
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
                    if state.relayed >= target || state.output == nil || Task.isCancelled { return true }
                    state.waiters[id] = (target, continuation)
                    return false
                }
                if done { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }

    /// True when the server has delivered nothing the consumer has not taken.
    var isCaughtUp: Bool {
        guard let deliveredEventCount else { return true }
        let target = deliveredEventCount()
        return state.withLock { $0.relayed >= target }
    }

    /// Puts marker `number` into the event queue, behind every event delivered so far.
    /// Returns false if there is no stream (or its queue is full).
    func sendMarker(_ number: Int) -> Bool {
        let event = TransportEvent.membership(MembershipEvent(channel: Self.markerChannel, user: String(number), change: .joined))
        return state.withLock { state in
            // Under the lock that `took` counts under: the consumer may take the marker
            // at once, but cannot count it before it is known to be one.
            guard let output = state.output, output.push(event) else { return false }
            state.markersQueued += 1
            return true
        }
    }

    func send(_ message: OutgoingEnvelope) async throws -> SendReceipt { try await inner.send(message) }

    /// The server's own batch send (one critical section on the hub, per-channel concurrency
    /// on Matrix), on the caller's executor as the protocol asks (no hop of its own).
    nonisolated(nonsending) func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] {
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
