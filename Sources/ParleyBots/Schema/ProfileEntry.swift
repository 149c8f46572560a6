import ParleyCore
import YAMLCoding

/// One user in `profiles.yaml` (or a flow test's `profiles:`): the fields of a `Profile`.
public struct ProfileEntry: Decodable, Sendable {
    /// Display name (`{{user.name}}`).
    public var name: String?
    /// Where `name` stands, for validation errors about it.
    public var nameMark: Mark?
    /// Avatar URL.
    public var avatar: String?
    /// Phone number, as written.
    public var phone: String?
    /// Email address.
    public var email: String?
    /// Organisation.
    public var org: String?
    /// Job title.
    public var title: String?

    private enum CodingKeys: String, CodingKey { case name, avatar, phone, email, org, title }

    /// Decodes the fields, the name with its position.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decodeIfPresent(Located<String>.self, forKey: .name)
        self.name = name?.value
        nameMark = name?.mark
        avatar = try container.decodeIfPresent(String.self, forKey: .avatar)
        phone = try container.decodeIfPresent(String.self, forKey: .phone)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        org = try container.decodeIfPresent(String.self, forKey: .org)
        title = try container.decodeIfPresent(String.self, forKey: .title)
    }

    /// The core SDK profile for user `id`.
    public func profile(id: String) -> Profile {
        Profile(id: id, name: name, avatar: avatar, phone: phone, email: email, org: org, title: title)
    }
}
