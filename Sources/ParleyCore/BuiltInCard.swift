/// A card every Parley client knows: its name and type code (from its content type, whose
/// `fallback` is the card's fallback), the fields a bot's `send:` may fill, and how a content
/// is made from those fields and decoded from the wire. Bot validation, content creation, the
/// content registry, the Matrix mapping and the console all read `BuiltInCard.all`, so a new
/// built-in card is its content type plus one entry there.
public struct BuiltInCard: Sendable {
    /// The card name written as `card` (`greeting`).
    public let name: String
    /// The content type code.
    public let typeCode: Int64
    /// The fields a `send:` may fill, in the order messages list them.
    public let fields: [String]
    /// The field naming a user whose profile fills in what a `send:` leaves out (a vCard's
    /// `user`); nil when the card takes nothing from profiles.
    public let profileField: String?
    /// Decodes the card's wire object.
    public let decode: ContentRegistry.Decoder
    private let build: @Sendable (Values, Profile?) -> any MessageContent

    init<Content: RegistrableContent>(_ content: Content.Type, fields: [String], profileField: String? = nil,
                                      make: @escaping @Sendable (Values, Profile?) -> Content) {
        name = Content.contentName
        typeCode = Content.contentTypeCode
        self.fields = fields
        self.profileField = profileField
        decode = { try Content.decode($0) }
        build = make
    }

    /// The content a `send:` with these rendered field values makes; `profile` is the profile of
    /// the user `profileField` names, when the caller found one.
    public func make(_ values: [String: String], profile: Profile? = nil) -> any MessageContent {
        build(Values(values), profile)
    }

    /// The rendered values of a `send:`'s card fields.
    public struct Values: Sendable {
        let values: [String: String]

        init(_ values: [String: String]) { self.values = values }

        /// The value as written; empty when the field is not given.
        public subscript(_ field: String) -> String { values[field] ?? "" }

        /// The value, nil when it is not given or renders empty (an optional field left out).
        public func optional(_ field: String) -> String? {
            guard let value = values[field], !value.isEmpty else { return nil }
            return value
        }
    }
}

extension BuiltInCard {
    /// Every built-in card, in the order messages list them.
    public static let all: [BuiltInCard] = [greeting, vcard, link, image]

    /// The built-in cards by name: one look-up per card sent.
    public static let named: [String: BuiltInCard] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    static let greeting = BuiltInCard(GreetingContent.self, fields: ["text", "summary"]) { values, _ in
        GreetingContent(text: values["text"], summary: values.optional("summary"))
    }

    static let link = BuiltInCard(LinkContent.self, fields: ["text", "url", "description", "image"]) { values, _ in
        LinkContent(text: values["text"], url: values["url"], description: values.optional("description"), image: values.optional("image"))
    }

    static let image = BuiltInCard(ImageContent.self, fields: ["url", "width", "height"]) { values, _ in
        ImageContent(url: values["url"], width: values.optional("width").flatMap { Int64($0) },
                     height: values.optional("height").flatMap { Int64($0) })
    }

    /// With a `user` whose profile is found, the profile gives the fields the `send:` leaves out.
    static let vcard = BuiltInCard(VCardContent.self, fields: ["user", "name", "avatar", "phone", "email", "org", "title"],
                                   profileField: "user") { values, profile in
        var card = profile.map(VCardContent.init(profile:))
            ?? VCardContent(user: values.optional("user"), name: values.optional("name") ?? values.optional("user") ?? "")
        if let name = values.optional("name") { card.name = name }
        if let avatar = values.optional("avatar") { card.avatar = avatar }
        if let phone = values.optional("phone") { card.phone = phone }
        if let email = values.optional("email") { card.email = email }
        if let org = values.optional("org") { card.org = org }
        if let title = values.optional("title") { card.title = title }
        return card
    }
}
