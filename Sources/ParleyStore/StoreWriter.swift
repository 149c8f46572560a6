import Foundation
import Synchronization

/// The one writer of a SQLite file: a thread of its own (never a cooperative-pool thread) that
/// takes every write queued meanwhile, runs them in one transaction (group commit), and only
/// after the COMMIT tells each its result. Each write runs in a savepoint of that transaction,
/// so one that fails is undone alone and the others still commit. The writer runs the WAL's
/// checkpoints itself, between batches, after the waiters were told: no write waits for one.
///
/// Writers queue three ways: `submit` (told on the writer thread after the commit; the caller
/// goes on), `write` (an async caller suspends until the commit) and `perform` (a thread
/// blocks until it). A caller must never wait for the writer while holding a lock that a
/// queued write takes: it would wait for itself.
///
/// `@unchecked Sendable`: the queue is used under the condition's lock; the connection only
/// by the writer thread.
public final class StoreWriter: @unchecked Sendable {
    /// One queued write: `run` inside the batch's transaction, then `done` after the COMMIT
    /// (or the failure), on the writer thread.
    struct Job {
        let run: (Connection) throws -> Void
        let done: (Result<Void, any Error>) -> Void
    }

    private let core: Core

    /// Takes `connection` (a SQLite file, opened for this writer alone) and starts the thread.
    /// - Parameter maxJobs: writes per transaction at most.
    public init(connection: Connection, label: String, maxJobs: Int = 1_000) {
        core = Core(connection: connection, maxJobs: max(1, maxJobs))
        let thread = Thread { [core] in core.loop() }
        thread.name = label
        thread.start()
    }

    deinit { core.close() }

    /// The writer of the SQLite file at `path` in this process: the one already open if a
    /// store holds it, else a new one on a connection of its own. Every store of a file shares
    /// it, so their writes share its transactions. It closes when its last holder lets go.
    public static func shared(path: String) throws -> StoreWriter {
        if StoreLocation.isMemory(path) { return StoreWriter(connection: try Connection(path: path), label: "parley-writer") }
        let key = URL(fileURLWithPath: path).standardizedFileURL.path
        return try registry.withLock { writers in
            if let writer = writers[key]?.writer { return writer }
            let writer = StoreWriter(connection: try Connection(path: path), label: "parley-writer")
            writers = writers.filter { $0.value.writer != nil }
            writers[key] = Held(writer: writer)
            return writer
        }
    }

    /// The shared writer of the SQLite file at `path`, with `migrations` applied (in its next
    /// transaction): what a store of the file opens.
    public static func shared(path: String, migrations: Migrations) throws -> StoreWriter {
        let writer = try shared(path: path)
        try writer.perform { try migrations.apply(to: $0) }
        return writer
    }

    /// Opens a store's database at `path` with `migrations` applied: on SQLite the file's
    /// shared writer and the connection its jobs run on (use it only there); on PostgreSQL a
    /// connection of the store's own and no writer.
    public static func open(path: String, migrations: Migrations) throws -> (connection: Connection, writer: StoreWriter?) {
        if StoreLocation.isPostgresURL(path) { return (try migrations.open(path), nil) }
        let writer = try shared(path: path, migrations: migrations)
        return (writer.connection, writer)
    }

    /// The connection the writes run on. Only for use inside the writer's own jobs (a store
    /// whose every call runs there keeps it at hand); anywhere else it races the writer.
    public var connection: Connection { core.connection }

    private struct Held {
        weak var writer: StoreWriter?
    }
    private static let registry = Mutex<[String: Held]>([:])

    /// Queues `run`; `done` hears its result after the COMMIT, on the writer thread (keep it
    /// short: the next batch waits for it).
    public func submit(_ run: @escaping (Connection) throws -> Void, done: @escaping (Result<Void, any Error>) -> Void) {
        core.enqueue(Job(run: run, done: done))
    }

    /// Runs `body` in the next batch and returns its result once that batch committed. It
    /// queues on the caller's executor, before suspending: writes queue in the order called.
    public nonisolated(nonsending) func write<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let result = Locked<T>()
            submit({ result.value = try body($0) }, done: { outcome in
                continuation.resume(with: outcome.map { result.value! })
            })
        }
    }

    /// Runs `body` in the next batch and returns its result once that batch committed,
    /// blocking the calling thread meanwhile. On the writer thread itself (from a `done`)
    /// it runs at once, in a transaction of its own.
    public func perform<T>(_ body: (Connection) throws -> T) throws -> T {
        if core.isWriterThread { return try core.connection.transaction { try body(core.connection) } }
        return try withoutActuallyEscaping(body) { body in
            let finished = DispatchSemaphore(value: 0)
            var result: T?
            var failure: (any Error)?
            // The job reaches `body` through a box emptied before this thread goes on: the
            // writer may hold the job a moment longer, and `body` must not outlive this call.
            let box = Locked<(Connection) throws -> Void>()
            box.value = { result = try body($0) }
            submit({ try box.value?($0) }, done: { outcome in
                if case .failure(let error) = outcome { failure = error }
                box.value = nil
                finished.signal()
            })
            finished.wait()
            if let failure { throw failure }
            return result!
        }
    }

    /// Waits until every write queued before this call has committed or failed.
    public func flush() {
        guard !core.isWriterThread else { return }
        let finished = DispatchSemaphore(value: 0)
        submit({ _ in }, done: { _ in finished.signal() })
        finished.wait()
    }

    /// Writes queued and not yet taken into a transaction.
    public var waiting: Int { core.waiting }

    /// Transactions committed (or rolled back) so far, and writes done in them.
    public var batches: (transactions: Int, writes: Int) { core.counts }

    /// A value handed from the job to its `done` on the writer thread (the two never overlap).
    private final class Locked<T>: @unchecked Sendable {
        var value: T?
    }

    /// The writer's state, held by its thread; the `StoreWriter` that owns it stops the thread
    /// when it goes.
    private final class Core: @unchecked Sendable {
        let connection: Connection
        private let condition = NSCondition()
        private var queue: [Job] = []
        /// Writes queued and not yet taken, read without the lock by the writer's spin.
        private let queued = Atomic<Int>(0)
        /// The writer is waiting on the condition (else a new write need not signal it).
        private var sleeping = false
        private var closed = false
        private var stopped = false
        private var transactions = 0
        private var writes = 0
        private let maxJobs: Int
        private let wal: WALWatch?
        nonisolated(unsafe) private var thread: Thread?

        init(connection: Connection, maxJobs: Int) {
            self.connection = connection
            self.maxJobs = maxJobs
            wal = connection.watchWAL()
        }

        var isWriterThread: Bool { Thread.current === thread }

        var waiting: Int { queued.load(ordering: .relaxed) }

        var counts: (transactions: Int, writes: Int) {
            condition.lock()
            defer { condition.unlock() }
            return (transactions, writes)
        }

        func enqueue(_ job: Job) {
            condition.lock()
            let accepted = !closed
            if accepted {
                queue.append(job)
                queued.add(1, ordering: .relaxed)
                if sleeping { condition.signal() }
            }
            condition.unlock()
            if !accepted { job.done(.failure(StoreError(code: 21, message: "the store's writer is closed"))) }
        }

        /// Lets the queued writes finish, then ends the thread; returns once it ended.
        func close() {
            condition.lock()
            closed = true
            condition.broadcast()
            if !isWriterThread { while !stopped { condition.wait() } }
            condition.unlock()
        }

        func loop() {
            condition.lock()
            thread = Thread.current
            condition.unlock()
            // Bounded by the queue: each turn takes at least one write, or ends once closed.
            while true {
                awaitWrites()
                condition.lock()
                while queue.isEmpty && !closed {
                    sleeping = true
                    condition.wait()
                    sleeping = false
                }
                if queue.isEmpty {
                    stopped = true
                    condition.broadcast()
                    condition.unlock()
                    return
                }
                let count = min(queue.count, maxJobs)
                let jobs = Array(queue.prefix(count))
                queue.removeFirst(count)
                queued.subtract(count, ordering: .relaxed)
                condition.unlock()
                commit(jobs)
                checkpointIfDue()
            }
        }

        /// Yields the core a few times while no write is queued before going to sleep: a
        /// writer that answered a sender is often sent the next write within microseconds,
        /// and a sleep and a wake-up would cost both threads a trip through the kernel.
        private func awaitWrites() {
            var turns = 0
            while queued.load(ordering: .relaxed) == 0 && turns < Self.yieldsBeforeSleep {
                sched_yield()
                turns += 1
            }
        }

        /// Yields before the writer sleeps (each a few microseconds when nothing else runs).
        static let yieldsBeforeSleep = 50

        /// One transaction for `jobs`, each in a savepoint; then each told its result.
        private func commit(_ jobs: [Job]) {
            var results = [Result<Void, any Error>](repeating: .success(()), count: jobs.count)
            do {
                try connection.transaction {
                    // A lone write needs no savepoint: its failure undoes the transaction.
                    if jobs.count == 1 { return try jobs[0].run(connection) }
                    for (index, job) in jobs.enumerated() {
                        do {
                            try connection.savepoint { try job.run(connection) }
                        } catch {
                            results[index] = .failure(error)
                        }
                    }
                }
            } catch {
                // The COMMIT (or BEGIN) failed: nothing of the batch is stored.
                results = results.map { _ in .failure(error) }
            }
            for (job, result) in zip(jobs, results) { job.done(result) }
            condition.lock()
            transactions += 1
            writes += jobs.count
            condition.unlock()
        }

        /// A passive checkpoint once the WAL holds enough pages: readers are not waited for,
        /// and no writer is waiting on it (they were told before).
        private func checkpointIfDue() {
            guard let wal, wal.due else { return }
            try? connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
            wal.checkpointed()
        }
    }
}
