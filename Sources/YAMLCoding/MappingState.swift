/// One mapping as seen by the keyed containers of one decoding attempt: which of its keys were
/// asked about, so the keys never asked about can be reported as unknown afterwards.
final class MappingState {
    let mapping: Node.Mapping
    /// Set when `allKeys` was read: every convertible key counts as used (dictionaries).
    private var used: [Bool]
    /// Keys asked about that the mapping lacks: suggestion candidates besides the used keys.
    private var absentQueried: [String] = []
    /// Built on first lookup in large mappings; small ones are scanned.
    private var index: [String: Int]?

    let path: CodingPathLink?

    init(_ mapping: Node.Mapping, path: CodingPathLink?) {
        self.mapping = mapping
        self.path = path
        used = [Bool](repeating: false, count: mapping.pairs.count)
    }

    /// The index of the pair with this key, marking it used; records absent keys.
    func lookUp(_ key: String) -> Int? {
        let found = find(key)
        if let found {
            used[found] = true
        } else {
            absentQueried.append(key)
        }
        return found
    }

    /// Marks a pair used without a lookup.
    func markUsed(_ position: Int) {
        used[position] = true
    }

    private func find(_ key: String) -> Int? {
        let pairs = mapping.pairs
        if pairs.count <= 12 {
            return pairs.firstIndex { $0.key.scalar?.value == key }
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

    /// An error for every key nobody asked about, with a suggestion where one is close.
    func unknownKeyErrors(_ context: DecodingContext) -> [YAMLError] {
        guard used.contains(false) else { return [] }
        var candidates: [String] = []
        for (position, pair) in mapping.pairs.enumerated() where used[position] {
            if let name = pair.key.scalar?.value { candidates.append(name) }
        }
        candidates += absentQueried
        var errors: [YAMLError] = []
        for (position, pair) in mapping.pairs.enumerated() where !used[position] {
            guard let name = pair.key.scalar?.value else {
                errors.append(context.error(at: pair.key.mark, "unexpected \(pair.key.kindDescription) as a key", path: path))
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
