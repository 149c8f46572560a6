/// A set of the most recent `capacity` ids (oldest forgotten first): duplicate detection
/// with bounded memory.
struct RecentIDs: Sendable {
    let capacity: Int
    private var members: Set<String> = []
    private var order = BoundedRing<String>()

    init(capacity: Int) { self.capacity = max(1, capacity) }

    func contains(_ id: String) -> Bool { members.contains(id) }

    /// Adds `id`; false if it was already there.
    @discardableResult
    mutating func insert(_ id: String) -> Bool {
        guard members.insert(id).inserted else { return false }
        if let oldest = order.append(id, capacity: capacity) { members.remove(oldest) }
        return true
    }
}
