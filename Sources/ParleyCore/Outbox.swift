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
        /// Backoff and attempts for transient errors.
        public var retry: RetryPolicy
        /// Token buckets per channel, per account and global.
        public var rateLimits: RateLimits
        /// Items taken per round (one store transaction, then these sends).
        public var maxBatch: Int
        /// The jitter source, in 0..<1 (inject a fixed one for deterministic tests).
        public var random: @Sendable () -> Double
        /// Every how many submits the submitter lets other tasks have its thread first (a
        /// transport that answers without suspending would let a sender in a loop keep it);
        /// 0: never. A sender paced by what it receives (a bot answering) needs no yield.
        public var submitsBetweenYields: Int
        /// Told of every attempt the transport refused, retried or not (a host counts the
        /// `rateLimited` ones); called on the outbox's executor: count and return.
        public var attemptFailed: (@Sendable (ParleyError) -> Void)?

        /// Defaults: 10 attempts from 200 ms doubling to 60 s, no rate limits, 512 a batch, a
        /// yield every other submit.
        public init(retry: RetryPolicy = RetryPolicy(), rateLimits: RateLimits = .unlimited, maxBatch: Int = 512,
                    random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }, submitsBetweenYields: Int = 2) {
            self.retry = retry
            self.rateLimits = rateLimits
            self.maxBatch = max(1, maxBatch)
            self.random = random
            self.submitsBetweenYields = max(0, submitsBetweenYields)
        }
    }

    /// Told the outcome of items nobody waits for (those recovered from the store at start).
    public typealias Completion = @Sendable (OutboxItem, Result<OutboxResult, ParleyError>) -> Void

    /// Where an item's result goes: a slot of a waiting `submit`, or none (recovered items).
    struct Slot {
        var batch: Int
        var index: Int
    }

    /// A queued item and who waits for it.
    struct Queued {
        var item: OutboxItem
        var slot: Slot?
        /// When the transport first answered `rateLimited` for this item.
        var rateLimitedSince: Date?
    }

    struct BatchWaiter {
        var results: [Result<OutboxResult, ParleyError>?]
        var remaining: Int
        /// Nil while the submitter runs a round itself: it collects the results afterwards.
        var continuation: CheckedContinuation<[Result<OutboxResult, ParleyError>], Never>?

        /// Stores one result; true once every item of the batch has one.
        mutating func record(_ result: Result<OutboxResult, ParleyError>, at index: Int) -> Bool {
            results[index] = result
            remaining -= 1
            return remaining == 0
        }
    }

    let transport: any Transport
    let store: any OutboxStore
    /// False for a store that keeps nothing (a memory client's): its rows need no writing.
    let storeKeepsItems: Bool
    let clock: any ParleyClock
    let configuration: Configuration
    var orphanHandler: Completion?

    /// The items, their lanes and rate limits: the queue decides, the actor does the I/O.
    var queue: SendQueue

    // MARK: - Waiters: the submitters' results and continuations
    var batches: [Int: BatchWaiter] = [:]
    var nextBatchID = 0
    /// Submits so far (now and then the submitter yields first).
    var submitsSoFar = 0

    // MARK: - Life cycle: the state machine decides, the actor holds the handles
    var machine = StateMachine()
    var worker: Task<Void, Never>?
    /// The waiting worker's continuation.
    var wake: CheckedContinuation<Void, Never>?
    var timer: Task<Void, Never>?
    /// `stop()` waiting for the submitters' rounds to end.
    var inlineRoundsDone: [CheckedContinuation<Void, Never>] = []
    /// Where commits run when they take a network round trip (a PostgreSQL store): off the
    /// actor, so the items submitted meanwhile are written together by the next (see
    /// `persistPending`). Nil: commits run on the actor (SQLite, memory).
    let committer: DispatchQueue?
    /// True while a commit runs off the actor; `stop()` waits for it (`persistsDone`).
    var persisting = false
    var persistsDone: [CheckedContinuation<Void, Never>] = []

    /// An outbox over `transport`, keeping items in `store`; call `start()`.
    public init(transport: any Transport, store: any OutboxStore, clock: any ParleyClock,
                configuration: Configuration = Configuration()) {
        self.transport = transport
        self.store = store
        storeKeepsItems = !(store is VolatileOutboxStore)
        committer = store.commitTakesARoundTrip ? DispatchQueue(label: "parley-outbox-commits") : nil
        self.clock = clock
        self.configuration = configuration
        queue = SendQueue(rateLimits: configuration.rateLimits, maxBatch: configuration.maxBatch)
    }

    /// Sets the handler for results nobody waits for (recovered items).
    public func setOrphanHandler(_ handler: Completion?) { orphanHandler = handler }

    /// Loads the items a previous run left in the store and starts sending.
    /// Throws `conflict` while a `stop()` is under way.
    public func start() throws {
        switch machine.start() {
        case .none: return
        case .refuse: throw ParleyError(.conflict, "the outbox is stopping; start it once stop() returned")
        case .startWorker: break
        }
        let recovered: [OutboxItem]
        do { recovered = try store.pending() } catch {
            machine.startFailed()
            throw error
        }
        for item in recovered { queue.recover(item) }
        worker = Task { await self.run() }
    }

    /// Stops sending. Items not yet accepted stay in the store (for the next start); their
    /// callers get `cancelled`.
    public func stop() async {
        guard machine.stop() == .stopWorker else { return }
        timer?.cancel()
        timer = nil
        signal()
        await worker?.value
        worker = nil
        // Bounded: no round starts once stopping, and the last ending round resumes these.
        while machine.inlineRounds > 0 { await withCheckedContinuation { inlineRoundsDone.append($0) } }
        // Bounded: a commit under way ends and resumes these; none starts once stopping.
        while persisting { await withCheckedContinuation { persistsDone.append($0) } }
        machine.stopFinished()
        persistCompleted()
        let stopped = ParleyError(.cancelled, "the outbox stopped before the transport accepted this item; a durable store keeps it for the next start")
        for queued in queue.removeAllItems() { finish(queued, .failure(stopped)) }
    }

    /// Queues `items` and returns when each has been accepted by the transport or failed,
    /// results in the order given. Items are sent in the order given within a channel and
    /// priority; a resubmitted client message number is deduplicated by the server.
    public func submit(_ items: [OutboxItem]) async -> [Result<OutboxResult, ParleyError>] {
        guard items.count > 1 else { return items.isEmpty ? [] : [await submitOne(items[0])] }
        await yieldNowAndThen()
        guard machine.isRunning else { return items.map { _ in .failure(Self.notRunning) } }
        return await submitQueued(items, at: clock.now())
    }

    /// The answer to a submit while the outbox is not running.
    static var notRunning: ParleyError { ParleyError(.notConnected, "the outbox is not running") }

    /// Queues `items` (stamped `now`), runs a round on this task when one may start, and
    /// waits for their results.
    func submitQueued(_ items: [OutboxItem], at now: Date) async -> [Result<OutboxResult, ParleyError>] {
        let batchID = registerBatch(count: items.count)
        queue.submit(items, batch: batchID, at: now)
        // The submitter sends a round itself when one may start: waking the worker task
        // (and being woken by it) would cost two thread hand-offs per send.
        await runRoundInline()
        return await results(ofBatch: batchID, count: items.count)
    }

    /// A waiter for `count` results; its id.
    func registerBatch(count: Int) -> Int {
        let batchID = nextBatchID
        nextBatchID += 1
        batches[batchID] = BatchWaiter(results: Array(repeating: nil, count: count), remaining: count, continuation: nil)
        return batchID
    }

    /// The results of a batch: at once if they are all in, else once they are.
    func results(ofBatch batchID: Int, count: Int) async -> [Result<OutboxResult, ParleyError>] {
        if batches[batchID]?.remaining == 0, let batch = batches.removeValue(forKey: batchID) {
            return Self.results(of: batch)
        }
        return await withCheckedContinuation { continuation in
            // No suspension since the check above: the batch still waits for results.
            guard batches[batchID] != nil else {
                continuation.resume(returning: (0..<count).map { _ in .failure(ParleyError(.cancelled, "no result")) })
                return
            }
            batches[batchID]?.continuation = continuation
        }
    }

    /// Items queued and not yet accepted (submitted, waiting or being retried).
    public var queuedCount: Int { queue.count }

    // MARK: - Completion

    /// Records the outcome of an item and tells whoever waits for it.
    func finish(_ queued: Queued, _ result: Result<OutboxResult, ParleyError>) {
        guard let slot = queued.slot else {
            orphanHandler?(queued.item, result)
            return
        }
        // Mutated in place (copying the batch would copy its result array per item), with
        // one dictionary access per item; a second only for the last one.
        // A batch without a continuation stays: its submitter collects it after its round.
        guard batches[slot.batch]?.record(result, at: slot.index) == true, batches[slot.batch]?.continuation != nil,
              let batch = batches.removeValue(forKey: slot.batch) else { return }
        batch.continuation?.resume(returning: Self.results(of: batch))
    }

    static func results(of batch: BatchWaiter) -> [Result<OutboxResult, ParleyError>] {
        batch.results.map { $0 ?? .failure(ParleyError(.cancelled, "no result")) }
    }

    /// Wakes the worker (new items, a timer that fired, a stop).
    func signal() {
        guard machine.signal(), let wake else { return }
        self.wake = nil
        wake.resume()
    }
}
