/// A set of the most recent `capacity` ids (oldest forgotten first): duplicate detection
/// with bounded memory.
public struct RecentIDs: Sendable {
    private var members: BoundedDictionary<String, Bool>

    /// An empty set keeping at most `capacity` ids.
    public init(capacity: Int) { members = BoundedDictionary(capacity: capacity) }

    /// Ids kept now.
    public var count: Int { members.count }

    /// Ids kept at most.
    public var capacity: Int { members.capacity }

    /// True if `id` is among the most recent.
    public func contains(_ id: String) -> Bool { members[id] != nil }

    /// Adds `id`; false if it was already there.
    @discardableResult
    public mutating func insert(_ id: String) -> Bool { members.set(true, for: id) }

    /// Forgets every id.
    public mutating func removeAll() { members.removeAll() }
}
