import YAMLCoding

/// A custom card type declared in a bot's `cards:`.
public struct CardDefinition: Decodable, Sendable, Equatable {
    /// Content type code, 1000 or above (below is Parley's own).
    public var type: Located<Int>
    /// Field names a `send:` may fill.
    public var fields: [Located<String>]
    /// Text for clients that cannot show the card; may use only `{{FIELD}}` of its own fields.
    public var fallback: Located<String>

    /// Same code, fields and fallback text (positions ignored): used to let two bots share a card.
    public static func == (lhs: CardDefinition, rhs: CardDefinition) -> Bool {
        lhs.type.value == rhs.type.value && lhs.fields.map(\.value) == rhs.fields.map(\.value)
            && lhs.fallback.value == rhs.fallback.value
    }
}
