import YAMLCoding

/// A list of actions (`do:`, `greeting:`, `fallback:`, `on_timeout:`). Each item is a mapping
/// with exactly one action key; `quote: true` may accompany `reply` or `send`:
///
///     - reply: "Let's sort this out."
///       quote: true
public struct ActionList: YAMLNodeDecodable, Sendable {
    /// The actions in order.
    public var items: [ActionItem]
    var issues: [SchemaIssue]

    /// An empty list.
    public init() {
        items = []
        issues = []
    }

    /// Reads the list's items; items that fail record their errors and the list fails.
    public init(yaml reader: NodeReader) throws {
        let list = try reader.decode([ListItem].self)
        var items: [ActionItem] = []
        items.reserveCapacity(list.count)
        var issues: [SchemaIssue] = []
        for item in list {
            issues += item.keys.issues
            if item.keys.items.count > 1 {
                let names = item.keys.items.map { "'\($0.action.key.rawValue)'" }.joined(separator: " and ")
                issues.append(SchemaIssue(mark: item.keys.items[1].mark,
                                          message: "one action per list item, found \(names): start a new item with '- ' for each action"))
            } else if item.keys.items.isEmpty && item.keys.issues.isEmpty {
                issues.append(SchemaIssue(mark: item.mark,
                                          message: "expected an action (\(Action.Key.list))"))
            }
            items += item.keys.items
        }
        self.items = items
        self.issues = issues
    }

    private struct ListItem: YAMLNodeDecodable {
        var mark: Mark
        var keys: ActionKeys
        init(yaml reader: NodeReader) throws {
            mark = reader.mark
            try reader.expectMapping()
            keys = ActionKeys(reader)
        }
    }
}
