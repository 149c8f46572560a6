/// A transport that can hand over its events in batches: everything that arrived since the
/// consumer last looked, in one element.
///
/// Optional (`ChatClient` uses it when its transport offers it, else `Transport.connect()`):
/// one stream element per batch instead of per event saves the stream's per-element cost and
/// most of the consumer's wake-ups when events come faster than they are handled.
public protocol BatchedEventSource: Transport {
    /// Like `connect()`, but each element holds one or more events, in the order
    /// `connect()` would deliver them one by one; a batch is never empty.
    func connectBatched() async throws -> AsyncStream<[TransportEvent]>

    /// Like `connectBatched()`, but hands over the queue itself: a wrapper can take from it
    /// directly (no relay task, so no extra wake-up per batch). The default relays
    /// `connectBatched()` into a new queue.
    func connectQueue() async throws -> BatchQueue<TransportEvent>

    /// Like `connectBatched()`, but the consumer takes each batch itself, on its own
    /// executor: a stream's producer runs off the consumer's actor, a hop there and back per
    /// batch. The default takes from `connectQueue()`.
    func connectPulled() async throws -> any EventBatchPuller
}

extension BatchedEventSource {
    /// Relays `connectBatched()` into a new queue.
    public func connectQueue() async throws -> BatchQueue<TransportEvent> {
        BatchQueue.relaying(try await connectBatched())
    }

    /// Takes from `connectQueue()`.
    public func connectPulled() async throws -> any EventBatchPuller {
        try await connectQueue()
    }
}

/// A connection's event batches, taken one at a time by their one consumer.
public protocol EventBatchPuller: Sendable {
    /// The next batch (never empty; waiting while there is none), on the caller's executor;
    /// nil once the connection's events ended. A cancelled consumer ends them.
    nonisolated(nonsending) func nextBatch() async -> [TransportEvent]?
}

extension BatchQueue: EventBatchPuller where Element == TransportEvent {
    /// `next()`.
    public nonisolated(nonsending) func nextBatch() async -> [TransportEvent]? { await next() }
}
