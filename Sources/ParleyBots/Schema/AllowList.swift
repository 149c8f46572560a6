import YAMLCoding

/// `allow:` — who may talk to the bot; omitted lists allow everyone.
public struct AllowList: YAMLNodeDecodable, Sendable {
    /// User ids.
    public var users: [Located<String>]?
    /// Targets `user:ID` / `group:ID`.
    public var channels: [Located<String>]?

    /// Reads `users` and `channels`.
    public init(yaml reader: NodeReader) throws {
        try reader.expectMapping()
        users = reader.decodeIfPresent([Located<String>].self, forKey: "users")
        channels = reader.decodeIfPresent([Located<String>].self, forKey: "channels")
    }
}
