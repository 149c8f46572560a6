import ParleyCore

/// Where the hub puts one subscriber's events: a plain stream (`HubTransport.connect()`)
/// or a batched one (`connectBatched()`). Both refuse events past the buffer limit.
enum EventSink: Sendable {
    case single(AsyncStream<TransportEvent>.Continuation)
    case batched(BatchQueue<TransportEvent>)

    /// True if the event was buffered; false if the buffer is full or the stream ended.
    func yield(_ event: TransportEvent) -> Bool {
        switch self {
        case .single(let continuation):
            if case .enqueued = continuation.yield(event) { return true }
            return false
        case .batched(let queue):
            return queue.push(event)
        }
    }

    /// Like `yield(_:)`, but a batched consumer's wake-up goes into `wakes` when that is not
    /// nil, for the caller to run after it released the hub's lock.
    func yield(_ event: TransportEvent, deferringWakeInto wakes: inout [BatchQueue<TransportEvent>.Wake]?) -> Bool {
        guard case .batched(let queue) = self, wakes != nil else { return yield(event) }
        let (accepted, wake) = queue.pushHoldingWake(event)
        if let wake { wakes?.append(wake) }
        return accepted
    }

    /// Ends the stream after what is buffered.
    func finish() {
        switch self {
        case .single(let continuation): continuation.finish()
        case .batched(let queue): queue.finish()
        }
    }
}
