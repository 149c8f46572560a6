/// A link with its text, and optionally a description and a preview image (type 5).
public struct LinkContent: RegistrableContent, Hashable {
    public static let contentTypeCode: Int64 = 5
    public static let contentName = "link"

    /// The link's title.
    public var text: String
    /// Where it points.
    public var url: String
    /// A line about the target (`description` on the wire).
    public var linkDescription: String?
    /// A preview image URL.
    public var image: String?

    /// A link card.
    public init(text: String, url: String, description: String? = nil, image: String? = nil) {
        self.text = text
        self.url = url
        self.linkDescription = description
        self.image = image
    }

    public var cardName: String? { Self.contentName }
    public var fallback: String { "\(text): \(url)" }
    public var digest: String { "[Link] \(text)" }

    public func encodeFields() -> [String: JSONValue] {
        var fields: [String: JSONValue] = ["text": .string(text), "url": .string(url)]
        if let linkDescription { fields["description"] = .string(linkDescription) }
        if let image { fields["image"] = .string(image) }
        return fields
    }

    public static func decode(_ fields: ContentFields) throws -> LinkContent {
        LinkContent(text: try fields.string("text"), url: try fields.string("url"),
                    description: try fields.optionalString("description"), image: try fields.optionalString("image"))
    }
}
