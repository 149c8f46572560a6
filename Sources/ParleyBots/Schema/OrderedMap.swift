import YAMLCoding
/// A YAML mapping of names to values that keeps the file's order (commands appear in `{{help}}`
/// in the order written) and each value's position.
public struct OrderedMap<Value: Decodable & Sendable>: Decodable, Sendable {
    /// One entry: the key, its value, and where the value and the key start.
    public struct Entry: Sendable {
        /// The key.
        public var name: String
        /// The decoded value.
        public var value: Value
        /// Where the value starts.
        public var mark: Mark
        /// Where the key starts (errors about the name point here).
        public var keyMark: Mark
    }

    /// The entries in file order.
    public var entries: [Entry]

    /// An empty map.
    public init() { entries = [] }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: SchemaKey.self)
        var entries: [Entry] = []
        try OrderedMap.forEachKey(decoder, container) { name, keyMark in
            let located = try container.decode(Located<Value>.self, forKey: SchemaKey(name))
            entries.append(Entry(name: name, value: located.value, mark: located.mark, keyMark: keyMark ?? located.mark))
        }
        // Merged (`<<`) entries keep their anchor's marks: the marks give the file's order.
        self.entries = entries.sorted { $0.mark < $1.mark }
    }

    /// Calls `body` with every string key of the mapping and the key's mark (nil when the
    /// decoder is not YAML's). YAML's pairs are walked directly: `allKeys` converts every key
    /// to `any CodingKey` and back, and the key marks then need a dictionary.
    static func forEachKey(_ decoder: any Decoder, _ container: KeyedDecodingContainer<SchemaKey>,
                           _ body: (String, Mark?) throws -> Void) throws {
        guard let pairs = decoder.yamlMappingPairs else {
            for key in container.allKeys { try body(key.stringValue, nil) }
            return
        }
        // Every key is asked about before any value decodes, as `allKeys` does.
        var names: [(String, Mark)] = []
        names.reserveCapacity(pairs.count)
        for pair in pairs {
            guard case .scalar(let key) = pair.key, container.contains(SchemaKey(key.value)) else { continue }
            names.append((key.value, pair.key.mark))
        }
        for (name, mark) in names { try body(name, mark) }
    }

    /// Key → the key's mark, from the YAML node (empty for other decoders).
    static func keyMarks(_ decoder: any Decoder) -> [String: Mark] {
        var marks: [String: Mark] = [:]
        for pair in decoder.yamlNode?.mapping?.pairs ?? [] {
            if let name = pair.key.scalar?.value, marks[name] == nil { marks[name] = pair.key.mark }
        }
        return marks
    }

    /// The names in file order.
    public var names: [String] { entries.map(\.name) }

    /// The value for `name`, if present.
    public subscript(name: String) -> Value? { entries.first { $0.name == name }?.value }

    /// The entry for `name`, if present.
    public func entry(_ name: String) -> Entry? { entries.first { $0.name == name } }

    /// True when there are no entries.
    public var isEmpty: Bool { entries.isEmpty }
}
