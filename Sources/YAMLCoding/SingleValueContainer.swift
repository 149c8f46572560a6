/// The decoder's own node as one value.
struct SingleValueContainer: SingleValueDecodingContainer {
    let decoder: NodeDecoder

    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool {
        decoder.context.tree.isNull(decoder.node)
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.decodeChild(T.self, node: decoder.node, key: nil)
    }
}
