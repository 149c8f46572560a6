/// Sequential access to a sequence's elements.
struct UnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: NodeDecoder
    let elements: [Node]
    private(set) var currentIndex = 0

    init(decoder: NodeDecoder, elements: [Node]) {
        self.decoder = decoder
        self.elements = elements
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private var current: Node? { isAtEnd ? nil : elements[currentIndex] }

    mutating func decodeNil() throws -> Bool {
        guard let node = current, node.isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let mark = current?.mark ?? decoder.node.mark
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
        let child = try decoder.nestedDecoder(for: current, key: IndexKey(currentIndex), missingIn: decoder.node.mark, wants: nil)
        currentIndex += 1
        return child
    }

    private func nested(wants kind: String) throws -> NodeDecoder {
        try decoder.nestedDecoder(for: current, key: IndexKey(currentIndex), missingIn: decoder.node.mark, wants: kind)
    }
}
