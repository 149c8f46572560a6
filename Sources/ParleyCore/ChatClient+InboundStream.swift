extension ChatClient {
    /// The transport's events: a stream of one event per element, or batches the receiving
    /// task takes itself when the transport is a `BatchedEventSource`.
    enum Inbound: Sendable {
        case single(AsyncStream<TransportEvent>)
        case pulled(any EventBatchPuller)
    }
}
