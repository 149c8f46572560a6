import Foundation

/// Recent messages by id, bounded by count and age, so replies and reactions find their
/// message without a store read. Oldest entries go first.
public struct MessageCache: Sendable {
    /// How much the cache keeps.
    public struct Limits: Sendable, Hashable {
        public var count: Int
        public var age: Duration

        public init(count: Int = 1000, age: Duration = .seconds(3600)) {
            self.count = max(0, count)
            self.age = age
        }
    }

    public let limits: Limits
    private var entries: [String: (message: Message, added: Date)] = [:]
    private var order: [String] = []
    private var head = 0

    public init(limits: Limits = Limits()) { self.limits = limits }

    public var count: Int { entries.count }

    /// Adds or replaces a message, then evicts by count and age.
    public mutating func insert(_ message: Message, at now: Date) {
        guard limits.count > 0 else { return }
        if entries[message.id] != nil {
            entries[message.id]?.message = message
        } else {
            entries[message.id] = (message, now)
            order.append(message.id)
        }
        evict(now: now)
    }

    /// The message if cached and not older than the age limit.
    public mutating func message(id: String, now: Date) -> Message? {
        evict(now: now)
        return entries[id]?.message
    }

    /// Replaces a cached message (no-op if it is not cached).
    public mutating func update(_ message: Message) {
        if entries[message.id] != nil { entries[message.id]?.message = message }
    }

    private mutating func evict(now: Date) {
        let oldest = now.addingTimeInterval(-limits.age.timeInterval)
        while head < order.count {
            let id = order[head]
            guard let entry = entries[id] else { head += 1; continue }
            guard entries.count > limits.count || entry.added < oldest else { break }
            entries.removeValue(forKey: id)
            head += 1
        }
        if head > 1024, head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
    }
}
