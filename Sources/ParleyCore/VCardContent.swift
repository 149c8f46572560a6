/// A person's business card (type 4). Also renders to and parses from RFC 6350 vCard 4.0
/// text (see `VCardContent+vCard.swift`). `Codable` with the keys of its fields, so a record
/// that keeps a card (a hand-off ticket) stores it as it is sent.
public struct VCardContent: RegistrableContent, Hashable, Codable {
    public static let contentTypeCode: Int64 = 4
    public static let contentName = "vcard"

    /// The user id the card describes (vCard `UID`).
    public var user: String?
    /// The formatted name (vCard `FN`).
    public var name: String
    /// A URL of the person's picture (vCard `PHOTO`).
    public var avatar: String?
    /// vCard `TEL`.
    public var phone: String?
    /// vCard `EMAIL`.
    public var email: String?
    /// vCard `ORG`.
    public var org: String?
    /// vCard `TITLE`.
    public var title: String?

    /// A card; only the name is required.
    public init(user: String? = nil, name: String, avatar: String? = nil, phone: String? = nil,
                email: String? = nil, org: String? = nil, title: String? = nil) {
        self.user = user
        self.name = name
        self.avatar = avatar
        self.phone = phone
        self.email = email
        self.org = org
        self.title = title
    }

    /// A card from a profile: the profile's display name and details.
    public init(profile: Profile) {
        self.init(user: profile.id, name: profile.displayName, avatar: profile.avatar, phone: profile.phone,
                  email: profile.email, org: profile.org, title: profile.title)
    }

    public var cardName: String? { Self.contentName }
    public var fallback: String {
        var parts = ["[Contact] \(name)"]
        if let phone { parts.append(phone) }
        if let email { parts.append(email) }
        return parts.joined(separator: ", ")
    }
    public var digest: String { "[Contact] \(name)" }

    public func encodeFields() -> [String: JSONValue] {
        var fields: [String: JSONValue] = ["name": .string(name)]
        for (key, value) in [("user", user), ("avatar", avatar), ("phone", phone), ("email", email), ("org", org), ("title", title)] {
            if let value { fields[key] = .string(value) }
        }
        return fields
    }

    public static func decode(_ fields: ContentFields) throws -> VCardContent {
        VCardContent(user: try fields.optionalString("user"), name: try fields.string("name"),
                     avatar: try fields.optionalString("avatar"), phone: try fields.optionalString("phone"),
                     email: try fields.optionalString("email"), org: try fields.optionalString("org"),
                     title: try fields.optionalString("title"))
    }
}
