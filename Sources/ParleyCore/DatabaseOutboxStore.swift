import Foundation
import ParleyStore

/// The durable outbox: one row per queued item in SQLite (WAL), or in a PostgreSQL schema (a
/// `postgres://` location, see `StoreLocation`). A row is written before the item is first sent
/// and deleted after the transport accepted it.
public final class DatabaseOutboxStore: OutboxStore {
    static let migrations = Migrations(name: "outbox", steps: [
        """
        CREATE TABLE outbox (
            id TEXT PRIMARY KEY, sequence INTEGER NOT NULL, priority INTEGER NOT NULL,
            attempts INTEGER NOT NULL, enqueued_at REAL NOT NULL, body TEXT NOT NULL
        ) WITHOUT ROWID
        """,
    ], postgresSteps: [
        """
        CREATE TABLE outbox (
            id TEXT PRIMARY KEY, sequence BIGINT NOT NULL, priority BIGINT NOT NULL,
            attempts BIGINT NOT NULL, enqueued_at DOUBLE PRECISION NOT NULL, body TEXT NOT NULL
        )
        """,
    ])

    private let connection: LockedConnection

    /// Opens (creating) the outbox tables in the database at `path` (a `StoreLocation` string).
    public let commitTakesARoundTrip: Bool

    public init(path: String) throws {
        connection = try LockedConnection(path: path, migrations: Self.migrations, what: "outbox")
        commitTakesARoundTrip = try connection.with("outbox open") { $0.isPostgres }
    }

    public func commit(inserting: [OutboxItem], deleting: [UUIDKey]) throws {
        guard !inserting.isEmpty || !deleting.isEmpty else { return }
        // Many rows a statement and the statements in one batch: one round trip on PostgreSQL.
        var statements: [(sql: String, values: [StoreValue])] = []
        for start in stride(from: 0, to: inserting.count, by: Self.rowsPerStatement) {
            let chunk = inserting[start..<min(start + Self.rowsPerStatement, inserting.count)]
            statements.append(("INSERT OR IGNORE INTO outbox (id, sequence, priority, attempts, enqueued_at, body) VALUES "
                               + Array(repeating: "(?, ?, ?, ?, ?, ?)", count: chunk.count).joined(separator: ", "),
                               chunk.flatMap { item -> [StoreValue] in
                                   [.text(item.id.text), .integer(item.sequence), .integer(Int64(item.priority.rawValue)),
                                    .integer(Int64(item.attempts)), .real(item.enqueuedAt.timeIntervalSince1970), .text(item.body)]
                               }))
        }
        for start in stride(from: 0, to: deleting.count, by: Self.rowsPerStatement) {
            let chunk = deleting[start..<min(start + Self.rowsPerStatement, deleting.count)]
            statements.append(("DELETE FROM outbox WHERE id IN (" + Array(repeating: "?", count: chunk.count).joined(separator: ", ") + ")",
                               chunk.map { .text($0.text) }))
        }
        _ = try connection.with("outbox write") { connection in try connection.batch(statements) }
    }

    /// Rows a statement of `commit` writes or deletes.
    static let rowsPerStatement = 100

    public func pending() throws -> [OutboxItem] {
        return try connection.with("outbox read") { connection in
            var items: [OutboxItem] = []
            try connection.prepare("SELECT id, sequence, priority, attempts, enqueued_at, body FROM outbox ORDER BY sequence").query { row in
                guard let id = row[0].string.flatMap(UUID.init(uuidString:)), let sequence = row[1].int64,
                      let priority = row[2].int, let attempts = row[3].int, let enqueued = row[4].double, let body = row[5].string,
                      let item = OutboxItem(id: id, body: body, priority: priority, attempts: attempts,
                                            enqueuedAt: Date(timeIntervalSince1970: enqueued), sequence: sequence)
                else { return }
                items.append(item)
            }
            return items
        }
    }
}
