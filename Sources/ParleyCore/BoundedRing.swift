/// The newest elements appended, at most `capacity` of them, in one array that never grows
/// past it: once full, each new element takes the oldest one's place and the oldest is handed
/// back. What every "remember the last N" in Parley keeps (recent ids, receipt keys, hand-off
/// lines), where a list that drops its front now and then holds up to twice as much.
public struct BoundedRing<Element> {
    private var elements: [Element] = []
    /// Where the next element goes once the ring is full: the oldest one.
    private var oldest = 0

    /// An empty ring.
    public init() {}

    /// How many elements are kept.
    public var count: Int { elements.count }

    /// Appends `element`, keeping the newest `capacity` (the same on every call); returns the
    /// element that no longer fits: the oldest, or `element` itself when `capacity` is 0.
    @discardableResult
    public mutating func append(_ element: Element, capacity: Int) -> Element? {
        guard capacity > 0 else { return element }
        guard elements.count >= capacity else {
            elements.append(element)
            return nil
        }
        let evicted = elements[oldest]
        elements[oldest] = element
        oldest = (oldest + 1) % elements.count
        return evicted
    }

    /// True if an element kept satisfies `predicate`.
    public func contains(where predicate: (Element) throws -> Bool) rethrows -> Bool {
        try elements.contains(where: predicate)
    }

    /// The elements kept, oldest first.
    public var oldestFirst: [Element] {
        Array(elements[oldest...] + elements[..<oldest])
    }
}

extension BoundedRing: Sendable where Element: Sendable {}
