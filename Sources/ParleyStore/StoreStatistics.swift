internal import CSQLite
import Synchronization

/// What the process's SQLite databases did, counted as it happens: how many write transactions
/// committed. A benchmark reads it around a workload to say what one operation costs in
/// commits (each a WAL append, lock calls, and with `full` durability a disk sync).
public enum StoreStatistics {
    /// Commits on every SQLite connection of the process so far.
    public static var commits: Int { committed.load(ordering: .relaxed) }

    private static let committed = Atomic<Int>(0)

    /// Counts the commits of `db` (SQLite's commit hook: it runs inside each COMMIT).
    static func count(_ db: OpaquePointer) {
        sqlite3_commit_hook(db, { _ in
            StoreStatistics.committed.add(1, ordering: .relaxed)
            return 0  // 0: the commit goes ahead
        }, nil)
    }
}
