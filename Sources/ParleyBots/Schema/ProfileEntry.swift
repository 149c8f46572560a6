
/// `profiles.yaml`: user id → profile fields.
public struct ProfileEntry: Decodable, Sendable {
    public var name: String?
    public var avatar: String?
    public var phone: String?
    public var email: String?
    public var org: String?
    public var title: String?
}
