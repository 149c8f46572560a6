import Foundation

/// A store's way to its database, the same calls on both: on SQLite, the file's one writer
/// (`StoreWriter.shared`: every call runs on its thread, in order, in its next group commit,
/// so the file has one writer however many stores keep tables in it); on PostgreSQL, a
/// connection of the store's own behind a lock (the server orders the writers).
///
/// `@unchecked Sendable`: the PostgreSQL connection is used under the lock only; the SQLite
/// one only on the writer's thread.
public final class StoreHandle: @unchecked Sendable {
    private let writer: StoreWriter?
    private let connection: Connection
    private let lock = NSLock()

    /// Opens the database at `path` (a SQLite file, `:memory:`, or a PostgreSQL location) and
    /// applies `migrations`.
    public init(path: String, migrations: Migrations) throws {
        (connection, writer) = try StoreWriter.open(path: path, migrations: migrations)
    }

    /// Whether the database is PostgreSQL (shared with other processes).
    public var isPostgres: Bool { writer == nil }

    /// Runs `body` with the connection: on SQLite inside the writer's next transaction,
    /// returning after its COMMIT (what `body` wrote is durable then); on PostgreSQL under
    /// the lock. Never call it from inside another call's `body`.
    public func run<T>(_ body: (Connection) throws -> T) throws -> T {
        if let writer { return try writer.perform(body) }
        lock.lock()
        defer { lock.unlock() }
        return try body(connection)
    }
}
