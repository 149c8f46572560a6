/// A short custom hello with a summary line (type 3).
public struct GreetingContent: RegistrableContent, Hashable {
    public static let contentTypeCode: Int64 = 3
    public static let contentName = "greeting"

    /// The greeting shown.
    public var text: String
    /// The line shown in conversation lists and pushes; defaults to the text.
    public var summaryText: String?

    /// A greeting with an optional summary line.
    public init(text: String, summary: String? = nil) {
        self.text = text
        self.summaryText = summary
    }

    public var cardName: String? { Self.contentName }
    public var fallback: String { text }
    public var digest: String { summaryText ?? text }
    public var summary: String { summaryText ?? text }

    public func encodeFields() -> [String: JSONValue] {
        var fields: [String: JSONValue] = ["text": .string(text)]
        if let summaryText { fields["summary"] = .string(summaryText) }
        return fields
    }

    public static func decode(_ fields: ContentFields) throws -> GreetingContent {
        GreetingContent(text: try fields.string("text"), summary: try fields.optionalString("summary"))
    }
}
