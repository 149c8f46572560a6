import Synchronization

/// How far a commit is durable (`storage.durability`), for every database the process opens.
///
/// SQLite in WAL mode with `synchronous=NORMAL` (`normal`) keeps every commit across a crash
/// of the process but syncs the disk only at checkpoints, so a power cut may take the last
/// commits; `synchronous=FULL` (`full`) syncs the log at every commit. On PostgreSQL `full`
/// sets `synchronous_commit = on` for Parley's sessions; `normal` leaves the server's setting.
public enum StoreDurability: String, Sendable, CaseIterable {
    case normal
    case full

    /// The setting of this process: one storage per process, set by the host before it opens
    /// any database (a connection reads it when it opens).
    public static var current: StoreDurability {
        get { setting.load(ordering: .acquiring) == 1 ? .full : .normal }
        set { setting.store(newValue == .full ? 1 : 0, ordering: .releasing) }
    }

    private static let setting = Atomic<UInt8>(0)

    /// SQLite's `synchronous` value for it.
    var sqliteSynchronous: String { self == .full ? "FULL" : "NORMAL" }
}
