import Synchronization

/// A buffer between one producer side and one consumer that takes everything buffered at
/// once: pushes are a short critical section, and a consumer that falls behind gets its
/// backlog as one array, so a burst of N elements costs one wake-up instead of N.
///
/// `limit` counts elements (not batches): a push that would leave more than `limit`
/// elements not yet taken is refused, so a producer can tell a stalled consumer. After
/// `finish()` the consumer gets what is buffered, then the end.
///
/// Inlinable, so the hub and the bot runtime get code specialised for their element type
/// (a generic class called across modules would otherwise go through metadata look-ups
/// and value witnesses on every push).
public final class BatchQueue<Element: Sendable>: Sendable {
    @usableFromInline
    struct State: ~Copyable {
        @usableFromInline var elements: [Element] = []
        /// The consumer, while it waits on an empty buffer.
        @usableFromInline var waiter: CheckedContinuation<[Element]?, Never>?
        /// A relay, while it waits for the consumer to take what is buffered.
        @usableFromInline var relayWaiter: CheckedContinuation<Void, Never>?
        @usableFromInline var finished = false

        @usableFromInline init() {}
    }

    /// The most elements the buffer holds before a push is refused.
    public let limit: Int
    @usableFromInline let state = Mutex(State())

    /// An empty queue holding at most `limit` elements not yet taken (at least 1).
    public init(limit: Int = .max) {
        self.limit = max(1, limit)
    }

    /// Buffers `element` (or hands it straight to a waiting consumer). False when the
    /// buffer is full or the queue has finished: nothing was added.
    @inlinable @discardableResult
    public func push(_ element: Element) -> Bool {
        // Its own path: the generic one costs a collection copy per element.
        let (accepted, waiter) = state.withLock { state -> (Bool, CheckedContinuation<[Element]?, Never>?) in
            guard !state.finished, state.elements.count < limit else { return (false, nil) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (true, waiter)
            }
            state.elements.append(element)
            return (true, nil)
        }
        waiter?.resume(returning: [element])
        return accepted
    }

    /// Like `push(_:)`, but a waiting consumer is not woken here: when `mustWake` is true the
    /// caller calls `wake()` soon, once it has released a lock of its own (a wake-up is a
    /// system call, and a woken thread that needs that lock would only wait for it).
    @inlinable
    public func pushLeavingWake(_ element: Element) -> (accepted: Bool, mustWake: Bool) {
        state.withLock { state in
            guard !state.finished, state.elements.count < limit else { return (false, false) }
            state.elements.append(element)
            return (true, state.waiter != nil)
        }
    }

    /// Hands everything buffered to the consumer if it waits; nothing otherwise.
    @inlinable
    public func wake() {
        let ready = state.withLock { state -> (CheckedContinuation<[Element]?, Never>, [Element])? in
            guard let waiter = state.waiter, !state.elements.isEmpty else { return nil }
            state.waiter = nil
            var taken: [Element] = []
            swap(&taken, &state.elements)
            return (waiter, taken)
        }
        if let (waiter, elements) = ready { waiter.resume(returning: elements) }
    }

    /// Buffers `elements` in order, all or none. False when they do not fit or the queue
    /// has finished.
    @inlinable @discardableResult
    public func push<Elements: Collection<Element>>(contentsOf elements: Elements) -> Bool {
        guard !elements.isEmpty else { return true }
        let (accepted, waiter) = state.withLock { state -> (Bool, CheckedContinuation<[Element]?, Never>?) in
            guard !state.finished, elements.count <= limit - state.elements.count else { return (false, nil) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (true, waiter)
            }
            state.elements.append(contentsOf: elements)
            return (true, nil)
        }
        waiter?.resume(returning: Array(elements))
        return accepted
    }

    /// Ends the queue: the consumer gets what is buffered, then nil.
    @inlinable
    public func finish() {
        let (waiter, relay) = state.withLock { state -> (CheckedContinuation<[Element]?, Never>?, CheckedContinuation<Void, Never>?) in
            state.finished = true
            defer {
                state.waiter = nil
                state.relayWaiter = nil
            }
            return (state.waiter, state.relayWaiter)
        }
        waiter?.resume(returning: nil)
        relay?.resume()
    }

    /// Returns once fewer than `count` elements are buffered (the consumer took them) or the
    /// queue has finished: what a relay waits on, so it pulls from its source no faster than
    /// the consumer takes.
    public func waitUntilFewerThan(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.finished || state.elements.count < count { return true }
                state.relayWaiter = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// True once `finish()` was called (elements may still be buffered).
    @inlinable
    public var isFinished: Bool { state.withLock { $0.finished } }

    /// Everything buffered (waiting while empty), or nil once finished and drained. A
    /// cancelled consumer finishes the queue, as a plain `AsyncStream` ends. Runs on the
    /// caller's executor (`isolation`): a consumer on an actor waits there and is resumed
    /// there.
    @inlinable
    public func next(isolation: isolated (any Actor)? = #isolation) async -> [Element]? {
        await withTaskCancellationHandler {
            // Capturing `isolation` isolates this closure to it: a closure that does not
            // would run on the generic executor, a hop off the caller and back per batch.
            _ = isolation
            return await withCheckedContinuation { (continuation: CheckedContinuation<[Element]?, Never>) in
                let (ready, relay) = state.withLock { state -> ([Element]??, CheckedContinuation<Void, Never>?) in
                    if !state.elements.isEmpty {
                        var taken: [Element] = []
                        swap(&taken, &state.elements)
                        defer { state.relayWaiter = nil }
                        return (.some(taken), state.relayWaiter)
                    }
                    if state.finished { return (.some(nil), nil) }
                    state.waiter = continuation
                    return (.none, nil)
                }
                relay?.resume()
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish()
        }
    }

    /// The stream the consumer iterates: one non-empty array per element.
    @inlinable
    public func stream() -> AsyncStream<[Element]> {
        AsyncStream(unfolding: { [self] in await next() })
    }
}

extension BatchQueue {
    /// A queue fed from `batches` by a relay task; it finishes when `batches` ends, and the
    /// relay stops once the queue refuses (finished by its consumer, or full).
    public static func relaying(_ batches: AsyncStream<[Element]>, holding bound: Int = relayBound) -> BatchQueue {
        relaying(bound: bound) { queue in
            // Bounded by the source stream.
            for await batch in batches {
                guard queue.push(contentsOf: batch) else { return }
                await queue.waitUntilFewerThan(bound)
            }
        }
    }

    /// A queue fed from the single elements of `elements`, a batch for whatever arrived while
    /// the consumer was busy, up to `bound` (then the relay waits, and `elements` buffers — a
    /// bounded source holds its producer back in turn).
    public static func relaying(elements: AsyncStream<Element>, holding bound: Int = relayBound) -> BatchQueue {
        relaying(bound: bound) { queue in
            // Bounded by the source stream.
            for await element in elements {
                guard queue.push(element) else { return }
                await queue.waitUntilFewerThan(bound)
            }
        }
    }

    /// The most elements a relay buffers before it waits for the consumer.
    public static var relayBound: Int { 1024 }

    private static func relaying(bound: Int, _ relay: @escaping @Sendable (BatchQueue) async -> Void) -> BatchQueue {
        let queue = BatchQueue()
        Task {
            await relay(queue)
            queue.finish()
        }
        return queue
    }
}
