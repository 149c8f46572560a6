import YAMLCoding
/// A YAML mapping of names to values that keeps the file's order (commands appear in `{{help}}`
/// in the order written) and each value's position.
public struct OrderedMap<Value: Decodable & Sendable>: Decodable, Sendable {
    /// One entry: the key, its value and where the value starts.
    public struct Entry: Sendable {
        public var name: String
        public var value: Value
        public var mark: Mark
    }

    /// The entries in file order.
    public var entries: [Entry]

    /// An empty map.
    public init() { entries = [] }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: SchemaKey.self)
        var entries: [Entry] = []
        for key in container.allKeys {
            let located = try container.decode(Located<Value>.self, forKey: key)
            entries.append(Entry(name: key.stringValue, value: located.value, mark: located.mark))
        }
        // allKeys order is up to the decoder; the marks give the file's order.
        self.entries = entries.sorted { $0.mark < $1.mark }
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
