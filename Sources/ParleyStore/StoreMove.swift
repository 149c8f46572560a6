import Foundation

/// Moving a store's tables from a SQLite file of their own into another file: `parley run`
/// keeps every store of the process in `parley.db`, where a release before kept some in files
/// beside it (`parley.hub.db`, `parley.web.db`).
public enum StoreMove {
    /// What a move did.
    public struct Done: Sendable, Equatable {
        /// Rows moved, by table.
        public let rows: [String: Int]
        /// Where the old file is kept.
        public let backup: String
    }

    /// Moves `tables` (of the store `migrations` creates) from the SQLite file `legacy`, if it
    /// exists, into the file at `path`, in one transaction that also records the move under
    /// `migrations.name`, then renames `legacy` to `<legacy>.bak`. A crash before the rename
    /// leaves only the rename to do at the next call. Nil when there is no `legacy` file.
    /// - Throws: `StoreError` if both files hold rows of the tables (nothing is changed), the
    ///   backup's name is taken, or a file cannot be read, written or renamed.
    public static func move(_ tables: [String], of migrations: Migrations, from legacy: String, into path: String) throws -> Done? {
        let files = FileManager.default
        guard files.fileExists(atPath: legacy) else { return nil }
        let backup = legacy + ".bak"
        guard !files.fileExists(atPath: backup) else {
            throw StoreError(code: 1, message: "cannot move the \(migrations.name) tables from \(legacy): \(backup) is in the way "
                             + "(a backup of an earlier move?); move it elsewhere")
        }
        let rows = try copy(tables, of: migrations, from: legacy, into: path)
        // The copy's connections were the last: SQLite merged each log into its file at close.
        try files.moveItem(atPath: legacy, toPath: backup)
        for suffix in ["-wal", "-shm"] where files.fileExists(atPath: legacy + suffix) {
            try files.removeItem(atPath: legacy + suffix)
        }
        return Done(rows: rows, backup: backup)
    }

    /// Copies `tables` of `legacy` into `path` (both migrated first) in one transaction that
    /// records the move; returns the rows copied by table. A move already recorded copies nothing.
    private static func copy(_ tables: [String], of migrations: Migrations, from legacy: String, into path: String) throws -> [String: Int] {
        _ = try migrations.open(legacy)
        let target = try migrations.open(path)
        try target.execute("CREATE TABLE IF NOT EXISTS parley_moves (name TEXT PRIMARY KEY, moved_at REAL NOT NULL)")
        if try target.scalar("SELECT 1 FROM parley_moves WHERE name = ?", [.text(migrations.name)]) != nil { return [:] }
        for table in tables where try target.scalar("SELECT 1 FROM \(table) LIMIT 1") != nil {
            throw StoreError(code: 1, message: "both \(path) and \(legacy) hold \(migrations.name) data (\(table)); nothing was moved: "
                             + "keep one of them")
        }
        // ATTACH cannot run inside a transaction; the copy itself is one.
        try target.run("ATTACH DATABASE ? AS legacy", [.text(legacy)])
        defer { try? target.execute("DETACH DATABASE legacy") }
        return try target.transaction {
            var rows: [String: Int] = [:]
            for table in tables {
                try target.execute("INSERT INTO main.\(table) SELECT * FROM legacy.\(table)")
                rows[table] = target.changes
            }
            try target.run("INSERT INTO parley_moves (name, moved_at) VALUES (?, ?)",
                           [.text(migrations.name), .real(Date().timeIntervalSince1970)])
            return rows
        }
    }
}
