import YAMLCoding
/// A YAML mapping of names to values that keeps the file's order (commands appear in `{{help}}`
/// in the order written) and each value's position.
public struct OrderedMap<Value: Decodable & Sendable>: YAMLNodeDecodable, Sendable {
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

    /// Reads every entry; a value that fails records its errors and the map fails as a whole.
    public init(yaml reader: NodeReader) throws {
        // The commands of a bot, the largest map, in code specialized for them: generic code
        // looks up the metadata of `Entry` and `[Entry]` for every entry and reaches
        // `Command.init(yaml:)` only through the search for a decoding protocol.
        if Value.self == Command.self {
            let commands = try OrderedMap<Command>(reading: reader) { name in try reader.decode(Command.self, forKey: name) }
            self = unsafeBitCast(commands, to: Self.self)
            return
        }
        try self.init(reading: reader) { name in try reader.decode(Value.self, forKey: name) }
    }

    /// Reads every entry with `value` (given the key).
    @inline(__always)
    private init(reading reader: NodeReader, _ value: (String) throws -> Value) throws {
        try reader.expectMapping()
        var entries: [Entry] = []
        entries.reserveCapacity(reader.keyCount)
        var previous: Mark?
        var inOrder = true
        try reader.forEachKey { name, keyMark, valueMark in
            if let previous, valueMark < previous { inOrder = false }
            previous = valueMark
            entries.append(Entry(name: name, value: try value(name), mark: valueMark, keyMark: keyMark))
        }
        self.entries = entries
        if !inOrder { sortByMark() }
    }

    /// Puts the entries in file order. Merged (`<<`) entries keep their anchor's marks, so the
    /// marks give the order; the usual map is in order already and is left alone.
    mutating func sortByMark() {
        // Marks read in place: in generic code, `entries[i].mark` copies the whole entry.
        let inOrder = entries.withUnsafeBufferPointer { buffer in
            !buffer.indices.dropFirst().contains { buffer[$0].mark < buffer[$0 - 1].mark }
        }
        guard !inOrder else { return }
        entries.sort { $0.mark < $1.mark }
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
