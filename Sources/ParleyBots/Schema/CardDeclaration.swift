import YAMLCoding

/// A custom card type as a bot's `cards:` declares it, positions kept for validation.
/// Compiling turns it into ParleyCore's `CardDefinition`, which contents carry.
public struct CardDeclaration: YAMLNodeDecodable, Sendable, Equatable {
    /// Content type code, 1000 or above (below is Parley's own).
    public var type: Located<Int>
    /// Field names a `send:` may fill.
    public var fields: [Located<String>]
    /// Text for clients that cannot show the card; may use only `{{FIELD}}` of its own fields.
    public var fallback: Located<String>

    /// Reads `type`, `fields` and `fallback` (all required).
    public init(yaml reader: NodeReader) throws {
        try reader.expectMapping()
        type = try reader.decode(Located<Int>.self, forKey: "type")
        fields = try reader.decode([Located<String>].self, forKey: "fields")
        fallback = try reader.decode(Located<String>.self, forKey: "fallback")
    }

    /// Same code, fields and fallback text (positions ignored): used to let two bots share a card.
    public static func == (lhs: CardDeclaration, rhs: CardDeclaration) -> Bool {
        lhs.type.value == rhs.type.value && lhs.fields.map(\.value) == rhs.fields.map(\.value)
            && lhs.fallback.value == rhs.fallback.value
    }
}
