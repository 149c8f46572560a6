import ParleyStore

extension MatrixStore {
    /// Erases access tokens an older Parley kept in `matrix_session.access_token`.
    ///
    /// An UPDATE alone leaves the old bytes in free space of the file and in the WAL; VACUUM
    /// rewrites every page and the TRUNCATE checkpoint empties the WAL, so the token is gone
    /// from the disk, not only from the table.
    /// SQLite only: no PostgreSQL schema has the column.
    static func eraseStoredTokens(_ db: Connection, log: (String) -> Void) throws {
        guard !db.isPostgres else { return }
        guard try db.scalar("SELECT 1 FROM matrix_session WHERE access_token IS NOT NULL LIMIT 1") != nil else { return }
        try db.execute("UPDATE matrix_session SET access_token = NULL")
        try db.execute("VACUUM")
        try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        log("erased the access token an older Parley stored in \(db.path): it is no longer kept on disk")
    }
}
