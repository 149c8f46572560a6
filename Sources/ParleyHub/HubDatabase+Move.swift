import Foundation
import ParleyCore
import ParleyStore

/// Moving a hub's tables from a file of their own into another store's file: `parley run`
/// keeps the hub in `parley.db`, where a release before kept it in `parley.hub.db`.
extension Hub {
    /// What `moveStore` did.
    public struct Move: Sendable, Equatable {
        /// Messages moved.
        public let messages: Int
        /// Where the old file is kept.
        public let backup: String
    }

    /// Moves the hub tables of the SQLite file `legacy` (if it exists) into the file at `path`,
    /// in one transaction, and keeps `legacy` as `<legacy>.bak`. Idempotent across a crash:
    /// the move is recorded in `path` in that transaction, so a crash before the rename only
    /// leaves the rename to do. Nil when there is no `legacy` file.
    /// - Throws: `ParleyError(.storage)` if both files hold hub data (nothing is changed), or
    ///   the files cannot be read or written.
    public static func moveStore(from legacy: String, into path: String) throws -> Move? {
        let files = FileManager.default
        guard files.fileExists(atPath: legacy) else { return nil }
        let backup = legacy + ".bak"
        guard !files.fileExists(atPath: backup) else {
            throw ParleyError(.storage, "cannot move the hub's tables: \(backup) is in the way (a backup of an earlier move?); "
                              + "move it elsewhere", context: ["path": legacy])
        }
        let moved: Int
        do {
            moved = try HubDatabase.copyTables(from: legacy, into: path)
        } catch let error as ParleyError {
            throw error
        } catch {
            throw ParleyError(.storage, "cannot move the hub's tables from \(legacy) into \(path): \(error)", context: ["path": legacy])
        }
        do {
            try files.moveItem(atPath: legacy, toPath: backup)
            // The copy's connection was the last: SQLite merged the log into the file at close.
            for suffix in ["-wal", "-shm"] where files.fileExists(atPath: legacy + suffix) {
                try files.removeItem(atPath: legacy + suffix)
            }
        } catch {
            throw ParleyError(.storage, "moved the hub's tables, but cannot rename \(legacy) to \(backup): \(error)",
                              context: ["path": legacy])
        }
        return Move(messages: moved, backup: backup)
    }
}

extension HubDatabase {
    /// The record of the move in the target file.
    private static let moveRecord = "hub-file"

    /// Copies every hub table of `legacy` into `path` (migrating both first) in one
    /// transaction that also records the move; returns the messages copied. A move already
    /// recorded copies nothing again.
    static func copyTables(from legacy: String, into path: String) throws -> Int {
        _ = try migrations.open(legacy)
        let target = try migrations.open(path)
        try target.execute("CREATE TABLE IF NOT EXISTS parley_moves (name TEXT PRIMARY KEY, moved_at REAL NOT NULL)")
        if try target.scalar("SELECT 1 FROM parley_moves WHERE name = ?", [.text(moveRecord)]) != nil { return 0 }
        let tables = ["hub_users", "hub_channels", "hub_members", "hub_messages", "hub_reactions"]
        for table in tables where try target.scalar("SELECT 1 FROM \(table) LIMIT 1") != nil {
            throw ParleyError(.storage, "both \(path) and \(legacy) hold hub data (\(table)); nothing was moved: keep one of them",
                              context: ["path": legacy])
        }
        // ATTACH cannot run inside a transaction; the copy itself is one.
        try target.run("ATTACH DATABASE ? AS legacy", [.text(legacy)])
        defer { try? target.execute("DETACH DATABASE legacy") }
        return try target.transaction {
            for table in tables { try target.execute("INSERT INTO main.\(table) SELECT * FROM legacy.\(table)") }
            try target.run("INSERT INTO parley_moves (name, moved_at) VALUES (?, ?)",
                           [.text(moveRecord), .real(Date().timeIntervalSince1970)])
            return try target.scalar("SELECT COUNT(*) FROM main.hub_messages")?.int ?? 0
        }
    }
}
