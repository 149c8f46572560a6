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

    /// Like `yield(_:)`, but a batched consumer that must be woken is added to `wakes` when
    /// that is not nil, for the caller to wake after it released the hub's lock.
    func yield(_ event: TransportEvent, deferringWakeInto wakes: inout [BatchQueue<TransportEvent>]?) -> Bool {
        guard case .batched(let queue) = self, wakes != nil else { return yield(event) }
        let (accepted, mustWake) = queue.pushLeavingWake(event)
        // Several events for one consumer in a critical section: one wake-up.
        if mustWake, wakes?.last !== queue { wakes?.append(queue) }
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
