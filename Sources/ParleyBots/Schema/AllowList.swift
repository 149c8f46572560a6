import YAMLCoding

/// `allow:` — who may talk to the bot; omitted lists allow everyone.
public struct AllowList: Decodable, Sendable {
    /// User ids.
    public var users: [Located<String>]?
    /// Targets `user:ID` / `group:ID`.
    public var channels: [Located<String>]?
}
