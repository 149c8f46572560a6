import YAMLCoding

/// The action keys written directly in one mapping, in file order, with `quote` applied.
struct ActionKeys: Sendable {
    var items: [ActionItem] = []
    var issues: [SchemaIssue] = []

    /// The keys read here, in the order they are read. Which of them a mapping has is found in
    /// one pass over its keys: most hold one or two of the ten, and a lookup per key was the
    /// largest cost of decoding actions.
    private enum Key: Int, CaseIterable {
        case quote, reply, send, react, unreact, broadcast, goto, set, handoff, wait
    }

    /// The action keys, in the order of the bits of `init(_:present:)`.
    static let keyNames = Key.allCases.map { "\($0)" }

    private static let names = KeyNames(keyNames)

    /// Reads the action keys of `reader`'s mapping (`expectMapping` already called).
    init(_ reader: NodeReader) {
        self.init(reader, present: reader.keysPresent(among: Self.names))
    }

    /// Reads the action keys of `reader`'s mapping, `present` saying which are there (bit `i`
    /// for `keyNames[i]`, as `keysPresent` gives it): for an owner that finds its own keys and
    /// these in one pass.
    init(_ reader: NodeReader, present: UInt64) {
        func has(_ key: Key) -> Bool { present & KeyNames.bit(key.rawValue) != 0 }
        let quote = has(.quote) ? reader.decodeIfPresent(Located<Bool>.self, forKey: "quote") : nil
        let quoted = quote?.value ?? false
        if has(.reply), let text = reader.decodeIfPresent(Located<String>.self, forKey: "reply") {
            items.append(ActionItem(action: .reply(text: text, quote: quoted), mark: text.mark))
        }
        if has(.send), let send = reader.decodeIfPresent(SendAction.self, forKey: "send") {
            items.append(ActionItem(action: .send(send, quote: quoted), mark: send.mark))
        }
        if has(.react), let emoji = reader.decodeIfPresent(Located<String>.self, forKey: "react") {
            items.append(ActionItem(action: .react(emoji), mark: emoji.mark))
        }
        if has(.unreact), let emoji = reader.decodeIfPresent(Located<String>.self, forKey: "unreact") {
            items.append(ActionItem(action: .unreact(emoji), mark: emoji.mark))
        }
        if has(.broadcast), let broadcast = reader.decodeIfPresent(Located<BroadcastAction>.self, forKey: "broadcast") {
            items.append(ActionItem(action: .broadcast(broadcast.value), mark: broadcast.mark))
        }
        if has(.goto), let target = reader.decodeIfPresent(Located<String>.self, forKey: "goto") {
            items.append(ActionItem(action: .goto(target), mark: target.mark))
        }
        if has(.set), let values = reader.decodeIfPresent(Located<OrderedMap<Located<String>>>.self, forKey: "set") {
            items.append(ActionItem(action: .set(values.value), mark: values.mark))
        }
        if has(.handoff), let handoff = reader.decodeIfPresent(Located<HandoffAction>.self, forKey: "handoff") {
            items.append(ActionItem(action: .handoff(handoff.value), mark: handoff.mark))
        }
        if has(.wait), let duration = reader.decodeIfPresent(Located<String>.self, forKey: "wait") {
            items.append(ActionItem(action: .wait(duration), mark: duration.mark))
        }
        // Keys run in the order written, whatever order they were looked up in.
        if items.count > 1 { items.sort { $0.mark < $1.mark } }
        if let quote, !items.contains(where: { $0.action.key == "reply" || $0.action.key == "send" }) {
            issues.append(SchemaIssue(mark: quote.mark, message: "'quote' modifies a 'reply' or 'send' in the same place, but there is none"))
        }
    }
}
