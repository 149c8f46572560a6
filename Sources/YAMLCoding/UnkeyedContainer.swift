/// Sequential access to a sequence's elements.
struct UnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: NodeDecoder
    /// How many elements the sequence has (0 for a lenient decoder's stand-in).
    let elementCount: Int
    private(set) var currentIndex = 0

    init(decoder: NodeDecoder, count: Int) {
        self.decoder = decoder
        elementCount = count
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elementCount }
    var isAtEnd: Bool { currentIndex >= elementCount }

    private var tree: TreeView { decoder.context.tree }
    private var current: NodeID? { isAtEnd ? nil : tree.element(decoder.node, currentIndex) }

    mutating func decodeNil() throws -> Bool {
        guard let node = current, tree.isNull(node) else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let mark = tree.mark(current ?? decoder.node)
        let value = try decoder.decodeChild(T.self, node: current, key: IndexKey(currentIndex), missingIn: mark)
        currentIndex += 1
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let container = try nested(wants: "a mapping").container(keyedBy: type)
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let container = try nested(wants: "a sequence").unkeyedContainer()
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let child = try decoder.nestedDecoder(for: current, key: IndexKey(currentIndex), missingIn: tree.mark(decoder.node), wants: nil)
        currentIndex += 1
        return child
    }

    private func nested(wants kind: String) throws -> NodeDecoder {
        try decoder.nestedDecoder(for: current, key: IndexKey(currentIndex), missingIn: tree.mark(decoder.node), wants: kind)
    }
}
