import ParleyCore
import Synchronization

/// The buffer behind one batched event stream (`HubTransport.connectBatched()`).
///
/// The hub pushes single events; the consumer takes everything buffered at once. The limit
/// counts events (not batches), so the hub's slow-consumer rule is the same as for a plain
/// stream: a push that finds `limit` events not yet taken is refused and the hub ends the
/// stream; the consumer still gets what was buffered, then reconnects and catches up by seq.
final class EventQueue: Sendable {
    private struct State {
        var events: [TransportEvent] = []
        /// The consumer, while it waits on an empty buffer.
        var waiter: CheckedContinuation<[TransportEvent]?, Never>?
        var finished = false
    }

    /// The most events the buffer holds before a push is refused.
    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Buffers `event` (or hands it straight to a waiting consumer). False when the buffer
    /// is full or the stream has ended: nothing was added.
    func push(_ event: TransportEvent) -> Bool {
        let (accepted, waiter) = state.withLock { state -> (Bool, CheckedContinuation<[TransportEvent]?, Never>?) in
            guard !state.finished, state.events.count < limit else { return (false, nil) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (true, waiter)
            }
            state.events.append(event)
            return (true, nil)
        }
        waiter?.resume(returning: [event])
        return accepted
    }

    /// Ends the stream: the consumer gets what is buffered, then the end.
    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<[TransportEvent]?, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Everything buffered (waiting while empty), or nil once finished and drained. A
    /// cancelled consumer ends the stream, as a plain `AsyncStream` does.
    func next() async -> [TransportEvent]? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[TransportEvent]?, Never>) in
                let ready = state.withLock { state -> [TransportEvent]?? in
                    if !state.events.isEmpty {
                        let taken = state.events
                        state.events = []
                        return .some(taken)
                    }
                    if state.finished { return .some(nil) }
                    state.waiter = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish()
        }
    }

    /// The stream a consumer iterates.
    func stream() -> AsyncStream<[TransportEvent]> {
        AsyncStream(unfolding: { [self] in await next() })
    }
}
