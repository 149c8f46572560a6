/// One mapping as seen by one decoding attempt (a `NodeReader`, or the keyed containers of a
/// `Decoder` through `MappingState`): which of its keys were asked about, so the keys never
/// asked about can be reported as unknown afterwards. A value, so a reader keeps it inline.
struct MappingUse {
    let mapping: Node.Mapping
    /// Which pairs were asked about: a bit mask for up to 64 pairs (no allocation), else flags.
    private var usedBits: UInt64 = 0
    private var usedFlags: [Bool]
    /// Keys asked about that the mapping lacks: suggestion candidates besides the used keys.
    /// Only recorded in the extra attempt made once unknown keys were found (saves allocations).
    private var absentQueried: [String] = []
    private let recordsQueries: Bool
    /// Built on first lookup in large mappings; small ones are scanned.
    private var index: [String: Int]?
    /// Where the next key asked about most likely is.
    private var nextGuess = 0

    init(_ mapping: Node.Mapping, recordsQueries: Bool = false) {
        self.mapping = mapping
        self.recordsQueries = recordsQueries
        usedFlags = mapping.pairs.count > 64 ? [Bool](repeating: false, count: mapping.pairs.count) : []
    }

    /// The index of the pair with this key, marking it used; records absent keys.
    mutating func lookUp(_ key: String) -> Int? {
        let found = find(key)
        if let found {
            markUsed(found)
        } else if recordsQueries {
            absentQueried.append(key)
        }
        return found
    }

    /// Marks a pair used without a lookup.
    mutating func markUsed(_ position: Int) {
        if usedFlags.isEmpty {
            usedBits |= 1 << UInt64(position)
        } else {
            usedFlags[position] = true
        }
    }

    private func isUsed(_ position: Int) -> Bool {
        usedFlags.isEmpty ? usedBits & (1 << UInt64(position)) != 0 : usedFlags[position]
    }

    private mutating func find(_ key: String) -> Int? {
        let pairs = mapping.pairs
        // Keys are mostly asked in file order (`allKeys` then one `decode` per key, or struct
        // fields written in declaration order): try the pair after the last one found first.
        if nextGuess < pairs.count, case .scalar(let scalar) = pairs[nextGuess].key,
           scalar.value.utf8.count == key.utf8.count, scalar.value == key {
            nextGuess += 1
            return nextGuess - 1
        }
        let found = search(key, in: pairs)
        if let found { nextGuess = found + 1 }
        return found
    }

    private mutating func search(_ key: String, in pairs: [Node.Pair]) -> Int? {
        if pairs.count <= 12 {
            let length = key.utf8.count
            var position = 0
            while position < pairs.count {
                // Comparing lengths first is cheap and rules out most keys.
                if case .scalar(let scalar) = pairs[position].key, scalar.value.utf8.count == length, scalar.value == key {
                    return position
                }
                position += 1
            }
            return nil
        }
        if index == nil {
            var built: [String: Int] = [:]
            built.reserveCapacity(pairs.count)
            for (position, pair) in pairs.enumerated() {
                if let name = pair.key.scalar?.value, built[name] == nil { built[name] = position }
            }
            index = built
        }
        return index?[key]
    }

    /// Whether every key was asked about.
    var allUsed: Bool {
        let count = mapping.pairs.count
        return usedFlags.isEmpty ? (count == 64 ? usedBits == .max : usedBits == (1 << UInt64(count)) - 1) : !usedFlags.contains(false)
    }

    /// An error for every key nobody asked about (at `path`), with a suggestion where one is close.
    func unknownKeyErrors(_ context: DecodingContext, path: CodingPathLink?) -> [YAMLError] {
        guard !allUsed else { return [] }
        var candidates: [String] = []
        for (position, pair) in mapping.pairs.enumerated() where isUsed(position) {
            if let name = pair.key.scalar?.value { candidates.append(name) }
        }
        candidates += absentQueried
        var errors: [YAMLError] = []
        for (position, pair) in mapping.pairs.enumerated() where !isUsed(position) {
            guard let name = pair.key.scalar?.value else {
                errors.append(context.error(at: pair.key.mark, "expected a string key, found \(pair.key.kindDescription)", path: path))
                continue
            }
            var message = "unknown key '\(name.replacingNewlines())'"
            if let suggestion = KeySuggestion.nearest(to: name, among: candidates) {
                message += ", did you mean '\(suggestion)'?"
            }
            errors.append(context.error(at: pair.key.mark, message, path: path.appending(StringKey(name))))
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
