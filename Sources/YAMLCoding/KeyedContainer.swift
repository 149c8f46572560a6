/// Keyed access to a mapping; every key asked about is marked, for unknown-key detection.
struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: NodeDecoder
    let state: MappingState

    var codingPath: [any CodingKey] { decoder.codingPath }

    /// Every key convertible to `Key`, all marked used (this is how dictionaries decode).
    var allKeys: [Key] {
        var keys: [Key] = []
        keys.reserveCapacity(state.count)
        let tree = state.tree
        for position in 0..<state.count {
            guard let name = tree.scalarString(tree.key(state.mapping, position)), let key = Key(stringValue: name) else { continue }
            state.markUsed(position)
            keys.append(key)
        }
        return keys
    }

    func contains(_ key: Key) -> Bool {
        state.lookUp(key.stringValue) != nil
    }

    private func node(for key: Key) -> NodeID? {
        state.lookUp(key.stringValue).map { state.tree.value(state.mapping, $0) }
    }

    /// Where the mapping starts (missing keys are reported there).
    private var mappingMark: Mark { state.tree.mark(state.mapping) }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let node = node(for: key) else {
            // Asked without `contains` first: a missing key reads as null.
            return true
        }
        return state.tree.isNull(node)
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try required(T.self, key)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try optional(T.self, key)
    }

    /// The value for a key that must be there (missing: an error at the mapping).
    private func required<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        try decoder.decodeChild(T.self, node: node(for: key), key: key, missingIn: mappingMark)
    }

    /// The value for a key that may be missing or null.
    private func optional<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
        guard let node = node(for: key), !state.tree.isNull(node) else { return nil }
        return try decoder.decodeChild(T.self, node: node, key: key)
    }

    // The concrete overloads synthesized code calls; each forwards to the generic path.
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try required(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try required(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try required(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try required(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try required(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try required(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try required(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try required(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try required(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try required(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try required(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try required(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try required(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try required(type, key) }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try optional(type, key) }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try optional(type, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try optional(type, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try optional(type, key) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder.nestedDecoder(for: node(for: key), key: key, missingIn: mappingMark, wants: "a mapping")
            .container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.nestedDecoder(for: node(for: key), key: key, missingIn: mappingMark, wants: "a sequence")
            .unkeyedContainer()
    }

    /// The decoder of this same mapping, for a superclass's keys (they share the used-key marks).
    func superDecoder() throws -> any Decoder {
        decoder
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try decoder.nestedDecoder(for: node(for: key), key: key, missingIn: mappingMark, wants: nil)
    }
}
