/// Plain text (type 1). The text is its own fallback, so no `fallback` key is written.
public struct TextContent: RegistrableContent, Hashable {
    public static let contentTypeCode: Int64 = 1
    public static let contentName = "text"

    /// The text.
    public var text: String

    /// A text message.
    public init(_ text: String) { self.text = text }

    public func encodeFields() -> [String: JSONValue] { ["text": .string(text)] }
    public var fallback: String { text }

    public static func decode(_ fields: ContentFields) throws -> TextContent {
        TextContent(try fields.string("text"))
    }
}
