/// The items of a lane, in order: taken from the front by moving `head`, so taking one
/// never shifts the rest.
struct LaneQueue: Sendable {
    private var items: [WorkItem] = []
    private var head = 0

    /// Nothing left to take.
    var isEmpty: Bool { head >= items.count }

    mutating func append(_ item: WorkItem) {
        items.append(item)
    }

    /// Puts `first` ahead of what waits.
    mutating func prepend(_ first: [WorkItem]) {
        items.insert(contentsOf: first, at: head)
    }

    /// The next item, nil when none waits.
    mutating func popFirst() -> WorkItem? {
        guard head < items.count else { return nil }
        // A queue that never empties (a busy conversation) would otherwise keep every
        // handled item alive: drop the handled half once it is the bigger one.
        if head >= 32, head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        defer { head += 1 }
        return items[head]
    }

    /// Empties the queue, keeping its storage for the next items.
    mutating func reset() {
        items.removeAll(keepingCapacity: true)
        head = 0
    }
}
