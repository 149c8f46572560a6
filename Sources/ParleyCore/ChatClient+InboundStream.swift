extension ChatClient {
    /// The transport's event stream: one event per element, or batches when the transport
    /// is a `BatchedEventSource`.
    enum Inbound: Sendable {
        case single(AsyncStream<TransportEvent>)
        case batched(AsyncStream<[TransportEvent]>)
    }
}
