/// An image by URL with its pixel size (type 2).
public struct ImageContent: RegistrableContent, Hashable {
    public static let contentTypeCode: Int64 = 2
    public static let contentName = "image"

    /// Where the image is.
    public var url: String
    /// Pixel width, if known.
    public var width: Int64?
    /// Pixel height, if known.
    public var height: Int64?

    /// An image by URL.
    public init(url: String, width: Int64? = nil, height: Int64? = nil) {
        self.url = url
        self.width = width
        self.height = height
    }

    public var cardName: String? { Self.contentName }
    public var fallback: String { "[Image] \(url)" }
    public var digest: String { "[Image]" }

    public func encodeFields() -> [String: JSONValue] {
        var fields: [String: JSONValue] = ["url": .string(url)]
        if let width { fields["width"] = .int(width) }
        if let height { fields["height"] = .int(height) }
        return fields
    }

    public static func decode(_ fields: ContentFields) throws -> ImageContent {
        ImageContent(url: try fields.string("url"), width: try fields.optionalInt("width"), height: try fields.optionalInt("height"))
    }
}
