import YAMLCoding

/// Actions of a command, trigger or step: action keys written directly, or a `do:` list.
struct ActionBlock: Sendable {
    var items: [ActionItem]
    var issues: [SchemaIssue]

    /// Reads the actions of `reader`'s mapping (`expectMapping` already called).
    init(_ reader: NodeReader) {
        let direct = ActionKeys(reader)
        let list = reader.decodeIfPresent(Located<ActionList>.self, forKey: "do")
        items = direct.items
        issues = direct.issues
        if let list {
            if let first = direct.items.first {
                issues.append(SchemaIssue(mark: first.mark,
                                          message: "'\(first.action.key)' next to 'do:': put every action in the 'do:' list, or write them all directly"))
            }
            // The usual block is one or the other: take the list's arrays as they are (appending
            // them to empty ones would copy every item).
            if items.isEmpty { items = list.value.items } else { items += list.value.items }
            if issues.isEmpty { issues = list.value.issues } else { issues += list.value.issues }
        }
    }
}
