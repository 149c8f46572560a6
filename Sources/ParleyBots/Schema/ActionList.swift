import YAMLCoding

/// A list of actions (`do:`, `greeting:`, `fallback:`, `on_timeout:`). Each item is a mapping
/// with exactly one action key; `quote: true` may accompany `reply` or `send`:
///
///     - reply: "Let's sort this out."
///       quote: true
public struct ActionList: Decodable, Sendable {
    /// The actions in order.
    public var items: [ActionItem]
    var issues: [SchemaIssue]

    /// An empty list.
    public init() {
        items = []
        issues = []
    }

    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        var items: [ActionItem] = []
        var issues: [SchemaIssue] = []
        // `isAtEnd` bounds the loop: every decode advances the container.
        while !container.isAtEnd {
            let item = try container.decode(ListItem.self)
            issues += item.keys.issues
            if item.keys.items.count > 1 {
                let names = item.keys.items.map { "'\($0.action.key)'" }.joined(separator: " and ")
                issues.append(SchemaIssue(mark: item.keys.items[1].mark,
                                          message: "one action per list item, found \(names): start a new item with '- ' for each action"))
            } else if item.keys.items.isEmpty && item.keys.issues.isEmpty {
                issues.append(SchemaIssue(mark: item.mark,
                                          message: "expected an action (\(Action.keys.joined(separator: ", ")))"))
            }
            items += item.keys.items
        }
        self.items = items
        self.issues = issues
    }

    private struct ListItem: Decodable {
        var mark: Mark
        var keys: ActionKeys
        init(from decoder: any Decoder) throws {
            mark = decoder.yamlMark ?? Mark(line: 0, column: 0)
            keys = try ActionKeys(decoder.container(keyedBy: SchemaKey.self), at: mark, keys: KeyPresence(decoder))
        }
    }
}
