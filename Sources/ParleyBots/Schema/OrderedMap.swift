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
        let keyMarks = OrderedMap.keyMarks(decoder)
        var entries: [Entry] = []
        for key in container.allKeys {
            let located = try container.decode(Located<Value>.self, forKey: key)
            entries.append(Entry(name: key.stringValue, value: located.value, mark: located.mark,
                                 keyMark: keyMarks[key.stringValue] ?? located.mark))
        }
        // allKeys order is up to the decoder; the marks give the file's order.
        self.entries = entries.sorted { $0.mark < $1.mark }
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
