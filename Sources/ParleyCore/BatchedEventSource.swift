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
}
