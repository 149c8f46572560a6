/// A user's profile: what vCards, templates (`{{user.name}}`) and message previews use.
public struct Profile: Sendable, Hashable, Codable {
    public var id: String
    public var name: String?
    public var avatar: String?
    public var phone: String?
    public var email: String?
    public var org: String?
    public var title: String?

    public init(id: String, name: String? = nil, avatar: String? = nil, phone: String? = nil,
                email: String? = nil, org: String? = nil, title: String? = nil) {
        self.id = id
        self.name = name
        self.avatar = avatar
        self.phone = phone
        self.email = email
        self.org = org
        self.title = title
    }

    /// The name to show: the display name, or the id when there is none.
    public var displayName: String { name ?? id }
}
