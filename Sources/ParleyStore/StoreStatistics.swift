internal import CSQLite
import Synchronization

/// What the process's SQLite databases did, counted as it happens: how many write transactions
/// committed, in all and per file. A benchmark reads it around a workload to say what one
/// operation costs in commits (each a WAL append, lock calls, and with `full` durability a
/// disk sync), and which store made them.
public enum StoreStatistics {
    /// Commits on every SQLite connection of the process so far.
    public static var commits: Int { committed.load(ordering: .relaxed) }

    /// Commits so far by file name (the last part of the path; `:memory:` for databases in
    /// memory), every file opened since the start.
    public static var commitsByFile: [String: Int] {
        files.withLock { $0.mapValues { $0.count.load(ordering: .relaxed) } }
    }

    private static let committed = Atomic<Int>(0)
    /// One counter per file name, kept for the life of the process (files are few).
    private static let files = Mutex<[String: FileCounter]>([:])

    private final class FileCounter: Sendable {
        let count = Atomic<Int>(0)
    }

    /// Counts the commits of `db`, opened at `path` (SQLite's commit hook: it runs inside each
    /// COMMIT).
    static func count(_ db: OpaquePointer, path: String) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let counter = files.withLock { files in
            if let counter = files[name] { return counter }
            let counter = FileCounter()
            files[name] = counter
            return counter
        }
        // The counter lives in `files` for good, so the unretained pointer stays valid.
        sqlite3_commit_hook(db, { context in
            StoreStatistics.committed.add(1, ordering: .relaxed)
            if let context { Unmanaged<FileCounter>.fromOpaque(context).takeUnretainedValue().count.add(1, ordering: .relaxed) }
            return 0  // 0: the commit goes ahead
        }, Unmanaged.passUnretained(counter).toOpaque())
    }
}
