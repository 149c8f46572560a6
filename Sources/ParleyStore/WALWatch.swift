internal import CSQLite
import Synchronization

/// The size of a connection's write-ahead log as its commits grow it, so its owner runs the
/// checkpoints itself (SQLite's automatic one would run inside a commit, with the writer's
/// waiters waiting on it). Installed by `Connection.watchWAL()`, which turns the automatic one off.
final class WALWatch: Sendable {
    /// Pages in the log after the last commit.
    private let pages = Atomic<Int>(0)
    /// Pages past which a checkpoint is due (SQLite's own default).
    static let threshold = 1_000

    var due: Bool { pages.load(ordering: .relaxed) >= Self.threshold }

    func checkpointed() { pages.store(0, ordering: .relaxed) }

    fileprivate func committed(pages count: Int32) { pages.store(Int(count), ordering: .relaxed) }

    /// Installs the watch on `db` (replacing the automatic checkpoint); `self` must outlive
    /// the connection (its owner keeps both).
    func install(on db: OpaquePointer) {
        sqlite3_wal_hook(db, { context, _, _, pages in
            if let context { Unmanaged<WALWatch>.fromOpaque(context).takeUnretainedValue().committed(pages: pages) }
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }
}
