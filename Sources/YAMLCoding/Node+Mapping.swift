extension Node {
    /// One key/value entry of a mapping.
    public struct Pair: Sendable, Hashable {
        /// The key node (usually a scalar).
        public var key: Node
        /// The value node.
        public var value: Node

        /// Creates a pair.
        public init(key: Node, value: Node) {
            self.key = key
            self.value = value
        }
    }

    /// A mapping node: pairs in file order, keys unique (duplicates are reported as errors).
    public struct Mapping: Sendable, Hashable {
        /// The entries, in file order (merged entries stand where their `<<` stood).
        public var pairs: [Pair]
        /// The explicit tag in full form, if any.
        public var tag: String?
        /// Where it starts.
        public var mark: Mark

        /// Creates a mapping.
        public init(_ pairs: [Pair], tag: String? = nil, mark: Mark) {
            self.pairs = pairs
            self.tag = tag
            self.mark = mark
        }

        /// The value of the first pair whose key is a scalar equal to `key`.
        public func value(forKey key: String) -> Node? {
            pairs.first { $0.key.scalar?.value == key }?.value
        }
    }
}
