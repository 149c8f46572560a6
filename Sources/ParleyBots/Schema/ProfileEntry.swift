import ParleyCore

/// One user in `profiles.yaml` (or a flow test's `profiles:`): the fields of a `Profile`.
public struct ProfileEntry: Decodable, Sendable {
    /// Display name (`{{user.name}}`).
    public var name: String?
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

    /// The core SDK profile for user `id`.
    public func profile(id: String) -> Profile {
        Profile(id: id, name: name, avatar: avatar, phone: phone, email: email, org: org, title: title)
    }
}
