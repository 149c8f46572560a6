/// Tasks waiting for a count that only grows (events taken, events processed) to reach a
/// target of each one's own: what an idle check waits on. The owner keeps it under its own
/// isolation (a lock, an actor), checks `isEmpty` when the count grows — almost always true,
/// since only idle checks wait — and resumes the continuations it hands back outside any lock.
public struct CountWaiters: Sendable {
    private var waiting: [Int: (target: Int, continuation: CheckedContinuation<Void, Never>)] = [:]
    private var lastID = 0

    public init() {}

    /// True when nobody waits.
    public var isEmpty: Bool { waiting.isEmpty }

    /// A number for a new waiter: what `remove(_:)` takes when the waiting task is cancelled.
    public mutating func newID() -> Int {
        lastID += 1
        return lastID
    }

    /// Adds a waiter to resume once the count reaches `target`.
    public mutating func add(_ id: Int, target: Int, _ continuation: CheckedContinuation<Void, Never>) {
        waiting[id] = (target, continuation)
    }

    /// Removes waiter `id`; its continuation, unless it was resumed already.
    public mutating func remove(_ id: Int) -> CheckedContinuation<Void, Never>? {
        waiting.removeValue(forKey: id)?.continuation
    }

    /// Removes the waiters whose target `count` reaches; their continuations.
    public mutating func reached(_ count: Int) -> [CheckedContinuation<Void, Never>] {
        guard !waiting.isEmpty else { return [] }
        let ready = waiting.filter { $0.value.target <= count }
        for id in ready.keys { waiting.removeValue(forKey: id) }
        return ready.values.map(\.continuation)
    }

    /// Removes every waiter (the count will not grow any more); their continuations.
    public mutating func removeAll() -> [CheckedContinuation<Void, Never>] {
        defer { waiting.removeAll() }
        return waiting.values.map(\.continuation)
    }
}
