/// Keyed access to a mapping; every key asked about is marked, for unknown-key detection.
struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: NodeDecoder
    let state: MappingState

    var codingPath: [any CodingKey] { decoder.codingPath }

    /// Every key convertible to `Key`, all marked used (this is how dictionaries decode).
    var allKeys: [Key] {
        var keys: [Key] = []
        keys.reserveCapacity(state.mapping.pairs.count)
        for (position, pair) in state.mapping.pairs.enumerated() {
            guard let name = pair.key.scalar?.value, let key = Key(stringValue: name) else { continue }
            state.markUsed(position)
            keys.append(key)
        }
        return keys
    }

    func contains(_ key: Key) -> Bool {
        state.lookUp(key.stringValue) != nil
    }

    private func node(for key: Key) -> Node? {
        state.lookUp(key.stringValue).map { state.mapping.pairs[$0].value }
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let node = node(for: key) else {
            // Asked without `contains` first: a missing key reads as null.
            return true
        }
        return node.isNull
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.decodeChild(T.self, node: node(for: key), key: key, missingIn: state.mapping.mark)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let node = node(for: key), !node.isNull else { return nil }
        return try decoder.decodeChild(T.self, node: node, key: key)
    }

    // The concrete overloads synthesized code calls; each forwards to the generic path.
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(type as Bool.Type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(type as String.Type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(type as Double.Type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decode(type as Float.Type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(type as Int.Type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decode(type as Int8.Type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decode(type as Int16.Type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(type as Int32.Type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(type as Int64.Type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decode(type as UInt.Type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decode(type as UInt8.Type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decode(type as UInt16.Type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decode(type as UInt32.Type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decode(type as UInt64.Type, key) }

    private func decode<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        try decoder.decodeChild(T.self, node: node(for: key), key: key, missingIn: state.mapping.mark)
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try present(type, key) }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try present(type, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try present(type, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try present(type, key) }

    private func present<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
        guard let node = node(for: key), !node.isNull else { return nil }
        return try decoder.decodeChild(T.self, node: node, key: key)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder.nestedDecoder(for: node(for: key), key: key, missingIn: state.mapping.mark, wants: "a mapping")
            .container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.nestedDecoder(for: node(for: key), key: key, missingIn: state.mapping.mark, wants: "a sequence")
            .unkeyedContainer()
    }

    /// The decoder of this same mapping, for a superclass's keys (they share the used-key marks).
    func superDecoder() throws -> any Decoder {
        decoder
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try decoder.nestedDecoder(for: node(for: key), key: key, missingIn: state.mapping.mark, wants: nil)
    }
}
