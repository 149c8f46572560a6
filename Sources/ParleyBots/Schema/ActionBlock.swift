import YAMLCoding

/// Actions of a command, trigger or step: action keys written directly, or a `do:` list.
struct ActionBlock: Sendable {
    var items: [ActionItem]
    var issues: [SchemaIssue]

    /// The keys read here, in the order of the bits of `init(_:present:)`: the action keys,
    /// then `do`.
    static let keyNames = ActionKeys.keyNames + ["do"]

    private static let doBit = KeyNames.bit(ActionKeys.keyNames.count)

    /// Reads the actions of `reader`'s mapping (`expectMapping` already called).
    init(_ reader: NodeReader) {
        self.init(direct: ActionKeys(reader), list: reader.decodeIfPresent(Located<ActionList>.self, forKey: "do"))
    }

    /// Reads the actions of `reader`'s mapping, `present` saying which of `keyNames` are there
    /// (bit `i` for `keyNames[i]`, as `keysPresent` gives it).
    init(_ reader: NodeReader, present: UInt64) {
        let direct = ActionKeys(reader, present: present)
        let list = present & Self.doBit != 0
            ? reader.decodeIfPresent(Located<ActionList>.self, forKey: "do") : nil
        self.init(direct: direct, list: list)
    }

    private init(direct: ActionKeys, list: Located<ActionList>?) {
        items = direct.items
        issues = direct.issues
        if let list {
            if let first = direct.items.first {
                issues.append(SchemaIssue(mark: first.mark,
                                          message: "'\(first.action.key.rawValue)' next to 'do:': put every action in the 'do:' list, or write them all directly"))
            }
            // The usual block is one or the other: take the list's arrays as they are (appending
            // them to empty ones would copy every item).
            if items.isEmpty { items = list.value.items } else { items += list.value.items }
            if issues.isEmpty { issues = list.value.issues } else { issues += list.value.issues }
        }
    }
}
