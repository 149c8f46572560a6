import ParleyCore
import Synchronization

/// The events a transport produced and its consumer has not taken yet, bounded by
/// back-pressure instead of loss.
///
/// An `AsyncStream` either buffers without limit or drops; neither is right for Matrix
/// events, which are marked handled when they are produced and never come again. Here the
/// producer pushes freely, and before producing more (the next `/sync`, the next event of a
/// wrapped stream) waits in `waitForRoom()` until the consumer has taken the backlog down to
/// `limit`. The backlog then holds at most `limit` events plus what one production step adds.
final class EventBacklog: Sendable {
    private struct State {
        var events: [TransportEvent] = []
        /// Taken events before it are not yet removed from `events` (removed in bulk).
        var head = 0
        var consumer: CheckedContinuation<TransportEvent?, Never>?
        var producer: CheckedContinuation<Void, Never>?
        var finished = false

        var count: Int { events.count - head }
    }

    /// The backlog a producer waits to get under.
    let limit: Int
    private let state = Mutex(State())

    /// An empty backlog; `limit` is at least 1.
    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Events pushed and not yet taken.
    var count: Int { state.withLock { $0.count } }

    /// True while the producer waits in `waitForRoom()`.
    var isHoldingProducer: Bool { state.withLock { $0.producer != nil } }

    /// Adds `event` (never refused, so never lost); ignored once finished.
    func push(_ event: TransportEvent) {
        let consumer = state.withLock { state -> CheckedContinuation<TransportEvent?, Never>? in
            guard !state.finished else { return nil }
            if let consumer = state.consumer {
                state.consumer = nil
                return consumer
            }
            state.events.append(event)
            return nil
        }
        consumer?.resume(returning: event)
    }

    /// Returns once the backlog is down to `limit` (or finished, or the caller cancelled).
    func waitForRoom() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waits = state.withLock { state -> Bool in
                    guard state.count > limit, !state.finished, !Task.isCancelled else { return false }
                    state.producer = continuation
                    return true
                }
                if !waits { continuation.resume() }
            }
        } onCancel: {
            state.withLock { state in defer { state.producer = nil }; return state.producer }?.resume()
        }
    }

    /// The oldest event not yet taken (waiting while there is none); nil once finished and
    /// drained. A cancelled consumer finishes the backlog, as a plain `AsyncStream` ends.
    func next() async -> TransportEvent? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<TransportEvent?, Never>) in
                let (ready, producer) = state.withLock { state -> (TransportEvent??, CheckedContinuation<Void, Never>?) in
                    guard state.count > 0 else {
                        if state.finished { return (.some(nil), nil) }
                        state.consumer = continuation
                        return (nil, nil)
                    }
                    let event = state.events[state.head]
                    state.head += 1
                    if state.head >= 1_024, state.head * 2 >= state.events.count {
                        state.events.removeFirst(state.head)
                        state.head = 0
                    }
                    var producer: CheckedContinuation<Void, Never>?
                    if state.count <= limit { swap(&producer, &state.producer) }
                    return (.some(event), producer)
                }
                producer?.resume()
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish()
        }
    }

    /// Ends the backlog: the consumer gets what is buffered, then nil; a waiting producer goes on.
    func finish() {
        let (consumer, producer) = state.withLock { state in
            state.finished = true
            defer { state.consumer = nil; state.producer = nil }
            return (state.consumer, state.producer)
        }
        consumer?.resume(returning: nil)
        producer?.resume()
    }

    /// The stream the consumer iterates, taking from this backlog.
    func stream() -> AsyncStream<TransportEvent> {
        AsyncStream(unfolding: { [self] in await next() })
    }
}
