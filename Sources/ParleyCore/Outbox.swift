import Foundation

/// The durable send queue between `ChatClient` and the transport.
///
/// Every item is written to the store before its first attempt (many items per transaction:
/// group commit), sent in FIFO order per channel and priority, retried with backoff on
/// transient errors (the server's `retryAfter` wins), and removed from the store once the
/// transport accepted it. `submit` returns only then: an acknowledged item is never lost,
/// and a retry reuses the client message number, so the server never shows it twice.
/// All waiting goes through the injected `ParleyClock`.
public actor Outbox {
    /// Tuning of the outbox.
    public struct Configuration: Sendable {
        public var retry: RetryPolicy
        public var rateLimits: RateLimits
        /// Items taken per round (one store transaction, then these sends).
        public var maxBatch: Int
        /// The jitter source, in 0..<1 (inject a fixed one for deterministic tests).
        public var random: @Sendable () -> Double
        /// How many channels' sends of a round run at once; each channel stays in order.
        /// 1 (the default) sends one at a time. A server that persists rooms independently
        /// (Matrix: ~40 ms per event and room) gains throughput from more.
        public var concurrentLanes: Int

        public init(retry: RetryPolicy = RetryPolicy(), rateLimits: RateLimits = .unlimited, maxBatch: Int = 512,
                    random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }, concurrentLanes: Int = 1) {
            self.retry = retry
            self.rateLimits = rateLimits
            self.maxBatch = max(1, maxBatch)
            self.random = random
            self.concurrentLanes = max(1, concurrentLanes)
        }
    }

    /// Told the outcome of items nobody waits for (those recovered from the store at start).
    public typealias Completion = @Sendable (OutboxItem, Result<OutboxResult, ParleyError>) -> Void

    struct LaneKey: Hashable {
        var channel: Channel
        var priority: SendPriority
    }

    struct Lane {
        var items: [OutboxItem] = []
        var head = 0
        var blockedUntil: Date?
        var queued = false
        var isEmpty: Bool { head >= items.count }
    }

    struct BatchWaiter {
        var results: [Result<OutboxResult, ParleyError>?]
        var remaining: Int
        var continuation: CheckedContinuation<[Result<OutboxResult, ParleyError>], Never>
    }

    let transport: any Transport
    let store: any OutboxStore
    let clock: any ParleyClock
    let configuration: Configuration
    var orphanHandler: Completion?

    // MARK: - Queue state
    var incoming: [OutboxItem] = []
    var lanes: [LaneKey: Lane] = [:]
    var ready: [[LaneKey]] = Array(repeating: [], count: SendPriority.allCases.count)
    var readyHead: [Int] = Array(repeating: 0, count: SendPriority.allCases.count)
    var blocked: Set<LaneKey> = []
    var accountBlockedUntil: Date?
    var completedIDs: [UUID] = []
    var nextSequence: Int64 = 1
    var waiters: [UUID: (batch: Int, index: Int)] = [:]
    var batches: [Int: BatchWaiter] = [:]
    var nextBatchID = 0
    var channelBuckets: [Channel: TokenBucket] = [:]
    var accountBucket: TokenBucket?

    // MARK: - Worker state
    var running = false
    var worker: Task<Void, Never>?
    var wake: CheckedContinuation<Void, Never>?
    var wakePending = false
    var timer: Task<Void, Never>?
    var timerDeadline: Date?

    public init(transport: any Transport, store: any OutboxStore, clock: any ParleyClock,
                configuration: Configuration = Configuration()) {
        self.transport = transport
        self.store = store
        self.clock = clock
        self.configuration = configuration
        self.accountBucket = configuration.rateLimits.perAccount.map(TokenBucket.init(rate:))
    }

    /// Sets the handler for results nobody waits for (recovered items).
    public func setOrphanHandler(_ handler: Completion?) { orphanHandler = handler }

    /// Loads the items a previous run left in the store and starts sending.
    public func start() throws {
        guard !running else { return }
        let recovered = try store.pending()
        for item in recovered {
            nextSequence = max(nextSequence, item.sequence + 1)
            appendToLane(item)
        }
        running = true
        worker = Task { await self.run() }
    }

    /// Stops sending. Items not yet accepted stay in the store (for the next start); their
    /// callers get `cancelled`.
    public func stop() async {
        guard running else { return }
        running = false
        timer?.cancel()
        timer = nil
        timerDeadline = nil
        signal()
        await worker?.value
        worker = nil
        let stopped = ParleyError(.cancelled, "the outbox stopped before the transport accepted this item")
        for item in incoming { finish(item.id, .failure(stopped)) }
        incoming.removeAll()
        for id in Array(waiters.keys) { finish(id, .failure(stopped)) }
        lanes.removeAll()
        ready = ready.map { _ in [] }
        readyHead = readyHead.map { _ in 0 }
        blocked.removeAll()
    }

    /// Queues `items` and returns when each has been accepted by the transport or failed,
    /// results in the order given.
    public func submit(_ items: [OutboxItem]) async -> [Result<OutboxResult, ParleyError>] {
        guard !items.isEmpty else { return [] }
        guard running else {
            return items.map { _ in .failure(ParleyError(.notConnected, "the outbox is not running")) }
        }
        let now = clock.now()
        let batchID = nextBatchID
        nextBatchID += 1
        return await withCheckedContinuation { continuation in
            var waiter = BatchWaiter(results: Array(repeating: nil, count: items.count), remaining: items.count, continuation: continuation)
            var accepted: [OutboxItem] = []
            accepted.reserveCapacity(items.count)
            for (index, var item) in items.enumerated() {
                if waiters[item.id] != nil {
                    waiter.results[index] = .failure(ParleyError(.conflict, "item \(item.id) is already queued"))
                    waiter.remaining -= 1
                    continue
                }
                item.sequence = nextSequence
                nextSequence += 1
                item.enqueuedAt = now
                waiters[item.id] = (batchID, index)
                accepted.append(item)
            }
            if waiter.remaining == 0 {
                continuation.resume(returning: waiter.results.map { $0 ?? .failure(ParleyError(.conflict, "duplicate")) })
                return
            }
            batches[batchID] = waiter
            incoming.append(contentsOf: accepted)
            signal()
        }
    }

    /// Items queued and not yet accepted (submitted, waiting or being retried).
    public var queuedCount: Int { incoming.count + lanes.values.reduce(0) { $0 + $1.items.count - $1.head } }

    // MARK: - Completion

    /// Records the outcome of an item and tells whoever waits for it.
    func finish(_ id: UUID, _ result: Result<OutboxResult, ParleyError>, item: OutboxItem? = nil) {
        guard let (batchID, index) = waiters.removeValue(forKey: id) else {
            if let item { orphanHandler?(item, result) }
            return
        }
        guard var batch = batches[batchID] else { return }
        batch.results[index] = result
        batch.remaining -= 1
        if batch.remaining == 0 {
            batches.removeValue(forKey: batchID)
            batch.continuation.resume(returning: batch.results.map {
                $0 ?? .failure(ParleyError(.cancelled, "no result"))
            })
        } else {
            batches[batchID] = batch
        }
    }

    /// Wakes the worker (new items, a timer that fired, a stop).
    func signal() {
        if let wake {
            self.wake = nil
            wake.resume()
        } else {
            wakePending = true
        }
    }
}
