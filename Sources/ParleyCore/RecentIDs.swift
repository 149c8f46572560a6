/// A set of the most recent `capacity` ids (oldest forgotten first): duplicate detection
/// with bounded memory.
struct RecentIDs: Sendable {
    let capacity: Int
    private var members: Set<String> = []
    private var order: [String] = []
    private var head = 0

    init(capacity: Int) { self.capacity = max(1, capacity) }

    func contains(_ id: String) -> Bool { members.contains(id) }

    /// Adds `id`; false if it was already there.
    @discardableResult
    mutating func insert(_ id: String) -> Bool {
        guard members.insert(id).inserted else { return false }
        order.append(id)
        if members.count > capacity {
            members.remove(order[head])
            head += 1
            if head > 4096, head * 2 > order.count {
                order.removeFirst(head)
                head = 0
            }
        }
        return true
    }
}
