import YAMLCoding

/// The action keys written directly in one mapping, in file order, with `quote` applied.
struct ActionKeys: Sendable {
    var items: [ActionItem] = []
    var issues: [SchemaIssue] = []

    init(_ container: KeyedDecodingContainer<SchemaKey>, at mark: Mark, keys: KeyPresence) throws {
        func probe<T: Decodable>(_ type: T.Type, _ name: String) throws -> T? {
            try keys.decodeIfPresent(T.self, name, in: container)
        }
        let quote = try probe(Located<Bool>.self, "quote")
        let quoted = quote?.value ?? false
        if let text = try probe(Located<String>.self, "reply") {
            items.append(ActionItem(action: .reply(text: text, quote: quoted), mark: text.mark))
        }
        if let send = try probe(SendAction.self, "send") {
            items.append(ActionItem(action: .send(send, quote: quoted), mark: send.mark))
        }
        if let emoji = try probe(Located<String>.self, "react") {
            items.append(ActionItem(action: .react(emoji), mark: emoji.mark))
        }
        if let emoji = try probe(Located<String>.self, "unreact") {
            items.append(ActionItem(action: .unreact(emoji), mark: emoji.mark))
        }
        if let broadcast = try probe(Located<BroadcastAction>.self, "broadcast") {
            items.append(ActionItem(action: .broadcast(broadcast.value), mark: broadcast.mark))
        }
        if let target = try probe(Located<String>.self, "goto") {
            items.append(ActionItem(action: .goto(target), mark: target.mark))
        }
        if let values = try probe(Located<OrderedMap<Located<String>>>.self, "set") {
            items.append(ActionItem(action: .set(values.value), mark: values.mark))
        }
        if let handoff = try probe(Located<HandoffAction>.self, "handoff") {
            items.append(ActionItem(action: .handoff(handoff.value), mark: handoff.mark))
        }
        if let duration = try probe(Located<String>.self, "wait") {
            items.append(ActionItem(action: .wait(duration), mark: duration.mark))
        }
        // Keys run in the order written, whatever order they were looked up in.
        items.sort { $0.mark < $1.mark }
        if let quote, !items.contains(where: { $0.action.key == "reply" || $0.action.key == "send" }) {
            issues.append(SchemaIssue(mark: quote.mark, message: "'quote' modifies a 'reply' or 'send' in the same place, but there is none"))
        }
    }
}
