/// A message body: text, a card, or any custom type an application registers.
///
/// On the wire a content is one JSON object, `{"type": CODE, "fallback": "…", …fields}`
/// (see WIRE.md). Types are looked up by their numeric code in a `ContentRegistry`.
public protocol MessageContent: Sendable {
    /// The numeric type code written as `type`.
    var typeCode: Int64 { get }
    /// The card name written as `card`; nil for plain text.
    var cardName: String? { get }
    /// The content's own fields, without the reserved `type`, `fallback` and `card`.
    func encodeFields() -> [String: JSONValue]
    /// What a client that does not know the type shows instead (the seeds' *degrade*).
    var fallback: String { get }
    /// The one-line preview in a conversation list.
    var digest: String { get }
    /// The text of a push notification.
    var summary: String { get }
    /// The complete wire object. The default adds `type`, `fallback` and `card` to the fields;
    /// `UnknownContent` returns its raw payload unchanged.
    func encoded() -> JSONValue
}

extension MessageContent {
    public var cardName: String? { nil }
    public var digest: String { fallback }
    public var summary: String { fallback }

    public func encoded() -> JSONValue {
        var object = encodeFields()
        object["type"] = .int(typeCode)
        // Text is its own fallback; every other type carries one for clients that lack it.
        if typeCode != TextContent.contentTypeCode { object["fallback"] = .string(fallback) }
        if let cardName { object["card"] = .string(cardName) }
        return .object(object)
    }
}

/// A content type with a fixed code that the registry can decode by itself.
public protocol RegistrableContent: MessageContent {
    /// The type code every value of this type has.
    static var contentTypeCode: Int64 { get }
    /// The name written as `card` and used in error messages.
    static var contentName: String { get }
    /// Decodes the wire object (including the reserved keys, which it may ignore).
    static func decode(_ fields: ContentFields) throws -> Self
}

extension RegistrableContent {
    public var typeCode: Int64 { Self.contentTypeCode }
}

/// The reserved keys of every payload object.
enum ReservedKey {
    static let all: Set<String> = ["type", "fallback", "card"]
}
