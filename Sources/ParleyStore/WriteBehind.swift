import Foundation

/// Writes whose callers need not wait for them, committed in the order queued by a thread of
/// their own, all that queued up meanwhile in one batch (on PostgreSQL one round trip for many
/// writes instead of one each, none of them on the caller's time).
///
/// For writes that are safe to lose in a crash because what they record is done again
/// otherwise (a conversation's state and its handled message, which a restart handles again
/// from the state before, its sends under the same names). Whatever reads what they write
/// calls `flush()` first, so it sees every write queued before.
///
/// `@unchecked Sendable`: the queue and counters are used under the condition's lock; `perform`
/// runs on the one drain at a time.
public final class WriteBehind: @unchecked Sendable {
    public typealias Write = [(sql: String, values: [StoreValue])]

    private let condition = NSCondition()
    private var queued: [Write] = []
    /// Writes queued since the start, and those done (committed or given up on).
    private var enqueued = 0
    private var done = 0
    private var draining = false
    private let drainQueue: DispatchQueue
    private let perform: (Write) throws -> Void
    private let failed: @Sendable (String) -> Void
    /// Statements per batch at most (a batch is one transaction).
    private let maxStatements: Int

    /// - Parameters:
    ///   - perform: runs one batch, all or nothing (`Connection.batch` on a connection of its own).
    ///   - failed: hears of each write given up on (its error), after it was tried alone.
    public init(label: String, maxStatements: Int = 500, perform: @escaping @Sendable (Write) throws -> Void,
                failed: @escaping @Sendable (String) -> Void) {
        drainQueue = DispatchQueue(label: label)
        self.perform = perform
        self.failed = failed
        self.maxStatements = max(1, maxStatements)
    }

    /// Queues `write` (its statements all or none) and returns at once.
    public func enqueue(_ write: Write) {
        guard !write.isEmpty else { return }
        condition.lock()
        queued.append(write)
        enqueued += 1
        let start = !draining
        draining = true
        condition.unlock()
        if start { drainQueue.async { self.drain() } }
    }

    /// Waits until every write queued before this call is done. Bounded by the drain: each
    /// batch either commits or is given up on (a lost connection is retried by `Connection`
    /// with its own timeouts).
    public func flush() {
        condition.lock()
        let target = enqueued
        while done < target { condition.wait() }
        condition.unlock()
    }

    /// Writes queued and not done yet.
    public var backlog: Int {
        condition.lock()
        defer { condition.unlock() }
        return enqueued - done
    }

    private func drain() {
        // Bounded: each turn takes at least one write off the queue, or ends.
        while true {
            condition.lock()
            guard !queued.isEmpty else {
                draining = false
                condition.unlock()
                return
            }
            var taken: [Write] = []
            var statements = 0
            while let next = queued.first, taken.isEmpty || statements + next.count <= maxStatements {
                taken.append(queued.removeFirst())
                statements += next.count
            }
            condition.unlock()
            commit(taken)
            condition.lock()
            done += taken.count
            condition.broadcast()
            condition.unlock()
        }
    }

    /// One transaction for all of `writes`; if it fails, each alone, so one bad write does
    /// not take the others with it.
    private func commit(_ writes: [Write]) {
        do {
            try perform(writes.flatMap { $0 })
            return
        } catch where writes.count > 1 {
            for write in writes { commit([write]) }
        } catch {
            failed("\(error)")
        }
    }
}
