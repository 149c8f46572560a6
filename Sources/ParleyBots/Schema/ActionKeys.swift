import YAMLCoding

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
