/// Versioned schema migrations, their version kept per module in a `parley_migrations` table.
///
/// Each module that owns tables lists its migrations in order; index 0 brings version 0 to 1.
/// Migrations already applied are skipped, so opening an existing database is cheap, and a
/// database written by a newer Parley is refused instead of being damaged.
public struct Migrations: Sendable {
    /// A name for error messages ("hub", "outbox", …).
    public let name: String
    /// SQLite's steps.
    public let steps: [String]
    /// PostgreSQL's steps, nil for a store that lives in SQLite only (the embedded hub's). They
    /// need not match SQLite's one for one: each dialect counts its own versions, and what
    /// SQLite reached over several steps a new PostgreSQL schema creates in its first.
    public let postgresSteps: [String]?

    public init(name: String, steps: [String], postgresSteps: [String]? = nil) {
        self.name = name
        self.steps = steps
        self.postgresSteps = postgresSteps
    }

    /// Opens (creating) the database at `path` and applies the steps not yet applied: what
    /// every store does when it opens. `warn` hears of file modes tightened (see `Connection`).
    public func open(_ path: String, warn: (String) -> Void = Connection.standardErrorWarning) throws -> Connection {
        let connection = try Connection(path: path, warn: warn)
        try apply(to: connection)
        return connection
    }

    /// Applies the steps not yet applied, each in its own transaction.
    ///
    /// Several modules may share one database file; each keeps its own version in a
    /// `parley_migrations` table rather than in the single `user_version`.
    ///
    /// On PostgreSQL, processes starting together take turns (an advisory lock per schema and
    /// store), so each step runs once.
    public func apply(to connection: Connection) throws {
        guard connection.isPostgres else { return try apply(steps, to: connection) }
        guard let postgresSteps else {
            throw StoreError(code: 1, message: "the \(name) store keeps its data in SQLite only; it cannot use PostgreSQL")
        }
        try connection.execute("SELECT pg_advisory_lock(hashtext(current_schema() || '/\(name)'))")
        defer { try? connection.execute("SELECT pg_advisory_unlock(hashtext(current_schema() || '/\(name)'))") }
        try apply(postgresSteps, to: connection)
        if connection.fence != nil { try Fencing.install(on: connection) }
    }

    private func apply(_ steps: [String], to connection: Connection) throws {
        try connection.execute("CREATE TABLE IF NOT EXISTS parley_migrations (name TEXT PRIMARY KEY, version INTEGER NOT NULL)")
        let current = try connection.scalar("SELECT version FROM parley_migrations WHERE name = ?", [.text(name)])?.int ?? 0
        guard current <= steps.count else {
            throw StoreError(code: 1, message: "database schema '\(name)' is at version \(current), newer than this Parley (\(steps.count))")
        }
        for version in current..<steps.count {
            try connection.transaction {
                try connection.execute(steps[version])
                try connection.run(
                    "INSERT INTO parley_migrations (name, version) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET version = excluded.version",
                    [.text(name), .integer(Int64(version + 1))])
            }
        }
    }
}
