import YAMLCoding
/// `send:` — a text message or a card. Keys other than `text`, `card` and `to` are card fields
/// (`send: { card: vcard, user: "{{args.user}}" }`).
public struct SendAction: YAMLNodeDecodable, Sendable {
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

    /// The keys that are not card fields.
    private static let named = KeyNames(["text", "card", "to"])

    /// Reads `text`, `card`, `to`, and every other key as a card field.
    public init(yaml reader: NodeReader) throws {
        mark = reader.mark
        try reader.expectMapping()
        // Which of the three are there, in one pass over the keys: the others are card fields.
        let present = reader.keysPresent(among: Self.named)
        text = present & KeyNames.bit(0) != 0 ? reader.decodeIfPresent(Located<String>.self, forKey: "text") : nil
        card = present & KeyNames.bit(1) != 0 ? reader.decodeIfPresent(Located<String>.self, forKey: "card") : nil
        to = present & KeyNames.bit(2) != 0 ? reader.decodeIfPresent(Located<String>.self, forKey: "to") : nil
        var fields = OrderedMap<Located<String>>()
        let named = (text == nil ? 0 : 1) + (card == nil ? 0 : 1) + (to == nil ? 0 : 1)
        if reader.keyCount > named { fields.entries.reserveCapacity(reader.keyCount - named) }
        try reader.forEachString(skipping: Self.named) { name, keyMark, value in
            fields.entries.append(.init(name: name, value: value, mark: value.mark, keyMark: keyMark))
        }
        fields.sortByMark()
        self.fields = fields
    }
}
