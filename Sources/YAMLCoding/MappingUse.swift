/// One mapping as seen by one decoding attempt (a `NodeReader`, or the keyed containers of a
/// `Decoder` through `MappingState`): which of its keys were asked about, so the keys never
/// asked about can be reported as unknown afterwards. A value, so a reader keeps it inline.
struct MappingUse {
    /// The mapping (or, for an empty document or a stand-in, the null read as no pairs).
    let mapping: NodeID
    /// How many pairs it has.
    let count: Int
    /// Which pairs were asked about: a bit mask for up to 64 pairs (no allocation), else the
    /// extras' flags.
    private var usedBits: UInt64 = 0
    /// Absent keys are recorded (as suggestion candidates besides the used keys) only in the
    /// extra attempt made once unknown keys were found.
    private let recordsQueries: Bool
    /// Flags of large mappings, recorded absent keys, a key index: made when first needed.
    private var extras: MappingExtras?
    /// Where the next key asked about most likely is.
    private var nextGuess = 0
    /// The (length, first byte) classes of the keys, one bit each, when all are ASCII scalars:
    /// a key asked about outside them is absent without a scan (most keys asked about are
    /// absent: a schema asks about every key it knows). Built on first lookup; `.max` when
    /// keys are not all ASCII (a non-ASCII key may equal an ASCII one, canonically).
    private var keyClasses: UInt64?

    /// False for the stand-in of a reader that has not called `expectMapping` (no pairs, no
    /// records): a reader keeps a `MappingUse`, not an optional one, whose destruction runs
    /// through generic code for every value read.
    let isRead: Bool

    init(_ mapping: NodeID, count: Int, recordsQueries: Bool = false) {
        self.mapping = mapping
        self.count = count
        self.recordsQueries = recordsQueries
        isRead = true
        extras = count > 64 ? MappingExtras(flagCount: count) : nil
    }

    /// The use of a node not read as a mapping (yet): no pairs.
    init(unread node: NodeID) {
        mapping = node
        count = 0
        recordsQueries = false
        isRead = false
    }

    private mutating func madeExtras() -> MappingExtras {
        if let extras { return extras }
        let made = MappingExtras(flagCount: 0)
        extras = made
        return made
    }

    /// The index of the pair with this key, marking it used; records absent keys.
    mutating func lookUp(_ key: String, in tree: TreeView) -> Int? {
        let found = find(key, in: tree)
        if let found {
            markUsed(found)
        } else if recordsQueries {
            madeExtras().absentQueried.append(key)
        }
        return found
    }

    /// Marks a pair used without a lookup.
    mutating func markUsed(_ position: Int) {
        if count <= 64 {
            usedBits |= 1 << UInt64(position)
        } else {
            extras?.usedFlags[position] = true
        }
    }

    private func isUsed(_ position: Int) -> Bool {
        count <= 64 ? usedBits & (1 << UInt64(position)) != 0 : extras?.usedFlags[position] ?? false
    }

    private mutating func find(_ key: String, in tree: TreeView) -> Int? {
        guard count > 0 else { return nil }
        // Byte comparisons against the key's UTF-8, no strings made. Keys are mostly asked in
        // file order (`allKeys` then one `decode` per key, or struct fields written in
        // declaration order): try the pair after the last one found first.
        let classes = keyClasses ?? buildKeyClasses(tree)
        let scanned = key.utf8.withContiguousStorageIfAvailable { wanted -> Int? in
            if nextGuess < count, tree.scalar(tree.key(mapping, nextGuess), hasBytes: wanted) { return nextGuess }
            let isASCII = TreeView.isASCII(wanted)
            if isASCII, classes & Self.keyClass(wanted.count, wanted.first ?? 0) == 0 { return -1 }
            guard count <= 12 else { return nil }
            var position = 0
            while position < count {
                if matches(position, key, wanted, isASCII, tree) { return position }
                position += 1
            }
            return -1
        }
        let found: Int?
        switch scanned {
        case .some(.some(let position)): found = position >= 0 ? position : nil
        default: found = indexed(key, in: tree) // a large mapping (or a key without contiguous UTF-8)
        }
        if let found { nextGuess = found + 1 }
        return found
    }

    private mutating func buildKeyClasses(_ tree: TreeView) -> UInt64 {
        var classes: UInt64 = 0
        for position in 0..<count {
            let record = tree.record(tree.key(mapping, position))
            guard record.kind == .scalar, record.isASCII else {
                classes = .max
                break
            }
            classes |= Self.keyClass(Int(record.count), record.count > 0 ? tree.bytes[Int(record.start)] : 0)
        }
        keyClasses = classes
        return classes
    }

    private static func keyClass(_ length: Int, _ first: UInt8) -> UInt64 {
        1 << UInt64((length &* 7 &+ Int(first)) & 63)
    }

    private func matches(_ position: Int, _ key: String, _ wanted: UnsafeBufferPointer<UInt8>, _ isASCII: Bool, _ tree: TreeView) -> Bool {
        let node = tree.key(mapping, position)
        return tree.scalar(node, equalsUTF8: wanted, isASCII: isASCII) ?? tree.scalar(node, equals: key)
    }

    /// The first pair with this key, through a dictionary built on first use.
    private mutating func indexed(_ key: String, in tree: TreeView) -> Int? {
        let extras = madeExtras()
        if extras.index == nil {
            var built: [String: Int] = [:]
            built.reserveCapacity(count)
            for position in 0..<count {
                if let name = tree.scalarString(tree.key(mapping, position)), built[name] == nil { built[name] = position }
            }
            extras.index = built
        }
        return extras.index?[key]
    }

    /// Whether every key was asked about.
    var allUsed: Bool {
        count <= 64 ? (count == 64 ? usedBits == .max : usedBits == (1 << UInt64(count)) - 1) : extras.map { !$0.usedFlags.contains(false) } ?? false
    }

    /// An error for every key nobody asked about (at `path`), with a suggestion where one is close.
    func unknownKeyErrors(_ context: DecodingContext, path: CodingPathLink?) -> [YAMLError] {
        guard !allUsed else { return [] }
        let tree = context.tree
        var candidates: [String] = []
        for position in 0..<count where isUsed(position) {
            if let name = tree.scalarString(tree.key(mapping, position)) { candidates.append(name) }
        }
        candidates += extras?.absentQueried ?? []
        var errors: [YAMLError] = []
        for position in 0..<count where !isUsed(position) {
            let key = tree.key(mapping, position)
            guard let name = tree.scalarString(key) else {
                errors.append(context.error(at: tree.mark(key), "expected a string key, found \(tree.kindDescription(key))", path: path))
                continue
            }
            var message = "unknown key '\(name.replacingNewlines())'"
            if let suggestion = KeySuggestion.nearest(to: name, among: candidates) {
                message += ", did you mean '\(suggestion)'?"
            }
            errors.append(context.error(at: tree.mark(key), message, path: path.appending(StringKey(name))))
        }
        return errors
    }
}

/// A key made from a string, for paths of unknown keys.
struct StringKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
