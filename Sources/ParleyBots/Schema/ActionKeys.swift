import YAMLCoding

/// The action keys written directly in one mapping, in file order, with `quote` applied.
struct ActionKeys: Sendable {
    var items: [ActionItem] = []
    var issues: [SchemaIssue] = []

    /// The keys read here, in the order of the bits of `init(_:present:)`: `quote`, then every
    /// action key. Which of them a mapping has is found in one pass over its keys: most hold
    /// one or two of the ten, and a lookup per key was the largest cost of decoding actions.
    static let keyNames = ["quote"] + Action.Key.allCases.map(\.rawValue)

    private static let names = KeyNames(keyNames)

    /// The action keys by bit, held once (`allCases` builds a new array on each call).
    private static let actionKeys = Action.Key.allCases

    /// The bits of `present` that are action keys, shifted down past `quote`.
    private static let actionBits = KeyNames.bit(actionKeys.count) - 1

    /// Reads the action keys of `reader`'s mapping (`expectMapping` already called).
    init(_ reader: NodeReader) {
        self.init(reader, present: reader.keysPresent(among: Self.names))
    }

    /// Reads the action keys of `reader`'s mapping, `present` saying which are there (bit `i`
    /// for `keyNames[i]`, as `keysPresent` gives it): for an owner that finds its own keys and
    /// these in one pass.
    init(_ reader: NodeReader, present: UInt64) {
        let quote = present & KeyNames.bit(0) != 0 ? reader.decodeIfPresent(Located<Bool>.self, forKey: "quote") : nil
        let quoted = quote?.value ?? false
        // Only the keys that are there, lowest bit first.
        var actions = (present >> 1) & Self.actionBits
        while actions != 0 {
            let key = Self.actionKeys[actions.trailingZeroBitCount]
            actions &= actions - 1
            if let item = key.decode(from: reader, quote: quoted) { items.append(item) }
        }
        // Keys run in the order written, whatever order they were looked up in.
        if items.count > 1 { items.sort { $0.mark < $1.mark } }
        if let quote, !items.contains(where: { $0.action.key == .reply || $0.action.key == .send }) {
            issues.append(SchemaIssue(mark: quote.mark, message: "'quote' modifies a 'reply' or 'send' in the same place, but there is none"))
        }
    }
}
