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

/// `allow:` — who may talk to the bot; omitted lists allow everyone.
public struct AllowList: Decodable, Sendable {
    /// User ids.
    public var users: [Located<String>]?
    /// Targets `user:ID` / `group:ID`.
    public var channels: [Located<String>]?
}

/// The cards every bot knows, with their fields (YAML cards may not reuse these names).
public enum BuiltInCards {
    /// Card name → field names.
    public static let fields: [String: [String]] = [
        "greeting": ["text", "summary"],
        "vcard": ["user", "name", "avatar", "phone", "email", "org", "title"],
        "link": ["text", "url", "description", "image"],
        "image": ["url", "width", "height"],
    ]

    /// Built-in names in a stable order, for messages.
    public static let names = ["greeting", "vcard", "link", "image"]

    /// Field names a YAML card may not declare: they mean something in `send:` itself.
    public static let reservedFieldNames: Set<String> = ["type", "fallback", "card"]
}
