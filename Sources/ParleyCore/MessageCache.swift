import Foundation

/// Recent messages by id, bounded by count and age, so replies and reactions find their
/// message without a store read. Oldest entries go first.
public struct MessageCache: Sendable {
    /// How much the cache keeps.
    public struct Limits: Sendable, Hashable {
        /// Messages kept at most (the cache may run an eighth over between evictions).
        public var count: Int
        /// How long a message stays.
        public var age: Duration

        /// Limits; by default 1,000 messages for an hour.
        public init(count: Int = 1000, age: Duration = .seconds(3600)) {
            self.count = max(0, count)
            self.age = age
        }
    }

    /// The limits in force.
    public let limits: Limits
    private var entries: [String: Message] = [:]
    /// Insertion order with times, so eviction needs one hash operation per entry.
    private var order: [(id: String, added: Date)] = []
    private var head = 0

    /// An empty cache.
    public init(limits: Limits = Limits()) { self.limits = limits }

    /// Entries held now (up to an eighth over the limit between evictions).
    public var count: Int { entries.count }

    /// Adds or replaces a message. Eviction runs once the count is an eighth over the limit
    /// (in one go, down to the limit), so a busy client pays it in bulk.
    public mutating func insert(_ message: Message, at now: Date) {
        guard limits.count > 0 else { return }
        if entries.updateValue(message, forKey: message.id) == nil { order.append((message.id, now)) }
        if entries.count - limits.count > max(1, limits.count / 8) { evict(now: now) }
    }

    /// The message if cached, not older than the age limit and within the count limit.
    public mutating func message(id: String, now: Date) -> Message? {
        evict(now: now)
        return entries[id]
    }

    /// Replaces a cached message (no-op if it is not cached).
    public mutating func update(_ message: Message) {
        if entries[message.id] != nil { entries[message.id] = message }
    }

    private mutating func evict(now: Date) {
        let oldest = now.addingTimeInterval(-limits.age.timeInterval)
        while head < order.count, entries.count > limits.count || order[head].added < oldest {
            entries.removeValue(forKey: order[head].id)
            head += 1
        }
        if head > 1024, head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
    }
}
