import YAMLCoding

/// Actions of a command, trigger or step: action keys written directly, or a `do:` list.
struct ActionBlock: Sendable {
    var items: [ActionItem]
    var issues: [SchemaIssue]

    init(_ container: KeyedDecodingContainer<SchemaKey>, at mark: Mark, keys: KeyPresence) throws {
        let direct = try ActionKeys(container, at: mark, keys: keys)
        let list = try keys.decodeIfPresent(Located<ActionList>.self, "do", in: container)
        items = direct.items
        issues = direct.issues
        if let list {
            if let first = direct.items.first {
                issues.append(SchemaIssue(mark: first.mark,
                                          message: "'\(first.action.key)' next to 'do:': put every action in the 'do:' list, or write them all directly"))
            }
            items += list.value.items
            issues += list.value.issues
        }
    }
}
