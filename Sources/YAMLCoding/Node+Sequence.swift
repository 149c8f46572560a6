extension Node {
    /// A sequence node.
    public struct Sequence: Sendable, Hashable {
        /// The elements, in order.
        public var elements: [Node]
        /// The explicit tag in full form, if any.
        public var tag: String?
        /// Where it starts.
        public var mark: Mark

        /// Creates a sequence.
        public init(_ elements: [Node], tag: String? = nil, mark: Mark) {
            self.elements = elements
            self.tag = tag
            self.mark = mark
        }
    }
}
