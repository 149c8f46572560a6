import YAMLCoding

/// `storage:`.
public struct StorageConfig: Decodable, Sendable {
    /// SQLite file path (relative to the working directory), or `:memory:`.
    public var path: Located<String>
    /// How long finished tickets, broadcast jobs, greetings of users not heard from and seen
    /// Matrix events are kept: a duration (`90d` unless set) or `forever`.
    public var retention: Located<String>?

    enum CodingKeys: String, CodingKey { case path, retention }

    /// `forever`: nothing is pruned.
    public static let keepForever = "forever"
    /// 90 days.
    public static let defaultRetention = Duration.seconds(90 * 86_400)
    /// The shortest retention accepted: less would forget Matrix events still being synced and
    /// greetings of users in the middle of a conversation.
    public static let shortestRetention = Duration.seconds(3600)
}
