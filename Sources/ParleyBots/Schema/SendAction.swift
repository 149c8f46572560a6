import YAMLCoding
/// `send:` — a text message or a card. Keys other than `text`, `card` and `to` are card fields
/// (`send: { card: vcard, user: "{{args.user}}" }`).
public struct SendAction: Decodable, Sendable {
    /// The text, or for cards the text field when the card has one.
    public var text: Located<String>?
    /// A built-in card (`greeting`, `vcard`, `link`, `image`) or one of the bot's `cards:`.
    public var card: Located<String>?
    /// Target `user:ID` or `group:ID`; default: the current conversation.
    public var to: Located<String>?
    /// Card fields besides `text`, in file order (templates).
    public var fields: OrderedMap<Located<String>>
    /// Where the `send:` value starts.
    public var mark: Mark

    public init(from decoder: any Decoder) throws {
        mark = decoder.yamlMark ?? Mark(line: 0, column: 0)
        let container = try decoder.container(keyedBy: SchemaKey.self)
        let keys = KeyPresence(decoder)
        text = try keys.decodeIfPresent(Located<String>.self, "text", in: container)
        card = try keys.decodeIfPresent(Located<String>.self, "card", in: container)
        to = try keys.decodeIfPresent(Located<String>.self, "to", in: container)
        var fields = OrderedMap<Located<String>>()
        try OrderedMap<Located<String>>.forEachKey(decoder, container) { name, keyMark in
            guard name != "text", name != "card", name != "to" else { return }
            let value = try container.decode(Located<String>.self, forKey: SchemaKey(name))
            fields.entries.append(.init(name: name, value: value, mark: value.mark, keyMark: keyMark ?? value.mark))
        }
        fields.entries.sort { $0.mark < $1.mark }
        self.fields = fields
    }
}
