extension Decoder {
    /// The mark of the node being decoded; nil for decoders other than `YAMLDecoder`'s.
    public var yamlMark: Mark? {
        (self as? NodeDecoder)?.node.mark
    }

    /// The node being decoded, for custom `init(from:)` that branch on its shape (a scalar or
    /// a mapping) instead of trying one type after another; nil for other decoders.
    public var yamlNode: Node? {
        (self as? NodeDecoder)?.node
    }
}

extension Decoder {
    /// The pairs a keyed container of this decoder reads, in file order: empty for a lenient
    /// stand-in decoder; nil for other decoders or when the node is not a mapping. Lets a
    /// custom `init(from:)` walk the keys without `allKeys` (which converts every key twice).
    public var yamlMappingPairs: [Node.Pair]? {
        guard let decoder = self as? NodeDecoder, case .mapping(let mapping) = decoder.node else { return nil }
        return decoder.lenient ? [] : mapping.pairs
    }

    /// Whether asking for a key the mapping lacks has an effect: true in the decoding attempt
    /// that collects the keys asked about for "did you mean" suggestions, and for other
    /// decoders. When false, code may skip asking for keys `yamlMappingPairs` lacks.
    public var yamlRecordsKeyQueries: Bool {
        (self as? NodeDecoder)?.frame.recordsQueries ?? true
    }
}
