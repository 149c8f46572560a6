import YAMLCoding

/// `storage:`.
public struct StorageConfig: Decodable, Sendable {
    /// SQLite file path (relative to the working directory), or `:memory:`.
    public var path: Located<String>?
    /// A PostgreSQL URL (`postgres://user@host:port/db`), instead of `path`: several `parley run`
    /// processes share it, each Matrix bot account owned by one of them at a time.
    public var url: Located<String>?
    /// With `url`: how long a process's hold on a bot account lasts unless renewed (`5s` unless
    /// set); a process that dies is replaced within it.
    public var lease: Located<String>?
    /// How long finished tickets, broadcast jobs, greetings of users not heard from and seen
    /// Matrix events are kept: a duration (`90d` unless set) or `forever`.
    public var retention: Located<String>?
    /// `normal` (unless set): a commit survives a crash of the process; `full`: also a power
    /// cut (each group commit is synced to the disk before it is acknowledged).
    public var durability: Located<String>?

    enum CodingKeys: String, CodingKey { case path, url, lease, retention, durability }

    /// `forever`: nothing is pruned.
    public static let keepForever = "forever"
    /// 90 days.
    public static let defaultRetention = Duration.seconds(90 * 86_400)
    /// The shortest retention accepted: less would forget Matrix events still being synced and
    /// greetings of users in the middle of a conversation.
    public static let shortestRetention = Duration.seconds(3600)
    /// The lease unless `lease` is set.
    public static let defaultLease = Duration.seconds(5)
    /// The shortest lease accepted: renewals every third of it must outpace a busy database.
    public static let shortestLease = Duration.seconds(2)
}
