/// A dictionary that keeps at most `capacity` keys, forgetting the oldest inserted first:
/// the one shape of every bounded cache by id (profiles, previews, recent ids). Insertion
/// order, not use order, decides: a look-up costs no bookkeeping, and what is forgotten is
/// only a cache miss. A key removed and inserted again is forgotten when its first
/// insertion comes up (early, never late: the bound holds).
public struct BoundedDictionary<Key: Hashable, Value> {
    /// Keys kept at most.
    public let capacity: Int
    private var values: [Key: Value] = [:]
    private var order = BoundedRing<Key>()

    /// An empty dictionary keeping at most `capacity` keys (at least one).
    public init(capacity: Int) { self.capacity = max(1, capacity) }

    /// How many keys are kept.
    public var count: Int { values.count }

    /// The value of `key`, if kept.
    public subscript(key: Key) -> Value? { values[key] }

    /// Sets the value of `key`; a new key may push out the oldest. Returns true if `key` was
    /// not kept before.
    @discardableResult
    public mutating func set(_ value: Value, for key: Key) -> Bool {
        guard values.updateValue(value, forKey: key) == nil else { return false }
        if let oldest = order.append(key, capacity: capacity), oldest != key { values.removeValue(forKey: oldest) }
        return true
    }

    /// Forgets `key`.
    public mutating func removeValue(forKey key: Key) {
        values.removeValue(forKey: key)
    }

    /// Forgets every key.
    public mutating func removeAll() {
        values.removeAll()
        order = BoundedRing()
    }
}

extension BoundedDictionary: Sendable where Key: Sendable, Value: Sendable {}
