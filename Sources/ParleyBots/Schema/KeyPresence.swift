import YAMLCoding

/// Which keys a mapping holds, so a decoder can skip asking for the absent ones: every ask goes
/// through the Codable container machinery, and an action mapping is asked about ten keys while
/// holding one or two. Asking is kept whenever it has an effect (the decoding attempt that
/// collects asked-about keys for "did you mean" suggestions) or the decoder is not YAML's.
struct KeyPresence {
    /// nil: assume every key may be present.
    private let pairs: [Node.Pair]?

    init(_ decoder: any Decoder) {
        pairs = decoder.yamlRecordsKeyQueries ? nil : decoder.yamlMappingPairs
    }

    /// False only when `name` is surely absent and not asking for it changes nothing.
    func mayHave(_ name: String) -> Bool {
        guard let pairs else { return true }
        let length = name.utf8.count
        for pair in pairs {
            // Comparing lengths first rules out most keys cheaply.
            if case .scalar(let key) = pair.key, key.value.utf8.count == length, key.value == name { return true }
        }
        return false
    }

    /// `container`'s value for `name`, skipping the ask when the key is surely absent.
    func decodeIfPresent<T: Decodable>(_ type: T.Type, _ name: String, in container: KeyedDecodingContainer<SchemaKey>) throws -> T? {
        guard mayHave(name) else { return nil }
        return try container.decodeIfPresent(T.self, forKey: SchemaKey(name))
    }
}
