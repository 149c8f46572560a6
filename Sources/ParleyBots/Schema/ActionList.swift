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
            keys = try ActionKeys(decoder.container(keyedBy: SchemaKey.self), at: mark)
        }
    }
}

/// The action keys written directly in one mapping, in file order, with `quote` applied.
struct ActionKeys: Sendable {
    var items: [ActionItem] = []
    var issues: [SchemaIssue] = []

    init(_ container: KeyedDecodingContainer<SchemaKey>, at mark: Mark) throws {
        let quote = try container.decodeIfPresent(Located<Bool>.self, forKey: SchemaKey("quote"))
        let quoted = quote?.value ?? false
        func key(_ name: String) -> SchemaKey { SchemaKey(name) }
        if let text = try container.decodeIfPresent(Located<String>.self, forKey: key("reply")) {
            items.append(ActionItem(action: .reply(text: text, quote: quoted), mark: text.mark))
        }
        if let send = try container.decodeIfPresent(SendAction.self, forKey: key("send")) {
            items.append(ActionItem(action: .send(send, quote: quoted), mark: send.mark))
        }
        if let emoji = try container.decodeIfPresent(Located<String>.self, forKey: key("react")) {
            items.append(ActionItem(action: .react(emoji), mark: emoji.mark))
        }
        if let emoji = try container.decodeIfPresent(Located<String>.self, forKey: key("unreact")) {
            items.append(ActionItem(action: .unreact(emoji), mark: emoji.mark))
        }
        if let broadcast = try container.decodeIfPresent(Located<BroadcastAction>.self, forKey: key("broadcast")) {
            items.append(ActionItem(action: .broadcast(broadcast.value), mark: broadcast.mark))
        }
        if let target = try container.decodeIfPresent(Located<String>.self, forKey: key("goto")) {
            items.append(ActionItem(action: .goto(target), mark: target.mark))
        }
        if let values = try container.decodeIfPresent(Located<OrderedMap<Located<String>>>.self, forKey: key("set")) {
            items.append(ActionItem(action: .set(values.value), mark: values.mark))
        }
        if let handoff = try container.decodeIfPresent(Located<HandoffAction>.self, forKey: key("handoff")) {
            items.append(ActionItem(action: .handoff(handoff.value), mark: handoff.mark))
        }
        if let duration = try container.decodeIfPresent(Located<String>.self, forKey: key("wait")) {
            items.append(ActionItem(action: .wait(duration), mark: duration.mark))
        }
        // Keys run in the order written, whatever order they were looked up in.
        items.sort { $0.mark < $1.mark }
        if let quote, !items.contains(where: { $0.action.key == "reply" || $0.action.key == "send" }) {
            issues.append(SchemaIssue(mark: quote.mark, message: "'quote' modifies a 'reply' or 'send' in the same place, but there is none"))
        }
    }
}

/// Actions of a command, trigger or step: action keys written directly, or a `do:` list.
struct ActionBlock: Sendable {
    var items: [ActionItem]
    var issues: [SchemaIssue]

    init(_ container: KeyedDecodingContainer<SchemaKey>, at mark: Mark) throws {
        let direct = try ActionKeys(container, at: mark)
        let list = try container.decodeIfPresent(Located<ActionList>.self, forKey: SchemaKey("do"))
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
