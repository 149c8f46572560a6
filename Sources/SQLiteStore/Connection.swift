internal import CSQLite
import Foundation

/// One SQLite connection with a statement cache.
///
/// Not `Sendable`: SQLite connections are used from one owner at a time. Wrap it in an actor
/// (or a lock) in the module that owns the data.
public final class Connection {
    let handle: OpaquePointer
    /// The path it was opened with; `":memory:"` keeps nothing.
    public let path: String
    private var cache: [String: Statement] = [:]

    /// Says on standard error what opening a database changed (a file mode tightened).
    public static let standardErrorWarning: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data("parley: warning: \(line)\n".utf8))
    }

    /// Opens (creating if needed) the database at `path`. A file database is switched to WAL
    /// with `synchronous=NORMAL`: durable across a process crash, and fast. The file, its WAL
    /// and the folders created for it are owner-only; looser ones are tightened and `warn` told.
    public init(path: String, busyTimeout: Duration = .seconds(5),
                warn: (String) -> Void = Connection.standardErrorWarning) throws {
        if path != ":memory:" && !path.isEmpty {
            try OwnerOnlyFiles.prepare(databaseAt: path, warn: warn)
        }
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(db)
            throw SQLiteError(code: code, message: "\(message): \(path)")
        }
        self.handle = db
        self.path = path
        let millis = busyTimeout.components.seconds * 1000 + busyTimeout.components.attoseconds / 1_000_000_000_000_000
        sqlite3_busy_timeout(db, Int32(clamping: millis))
        if path != ":memory:" {
            try execute("PRAGMA journal_mode=WAL")
            try execute("PRAGMA synchronous=NORMAL")
        }
        try execute("PRAGMA foreign_keys=ON")
    }

    deinit {
        cache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more SQL statements that take no parameters.
    public func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? "error"
            sqlite3_free(message)
            throw SQLiteError(code: code, message: text, sql: sql)
        }
    }

    /// A prepared statement for `sql`, cached for reuse.
    public func prepare(_ sql: String) throws -> Statement {
        if let statement = cache[sql] { return statement }
        let statement = try Statement(connection: self, sql: sql)
        cache[sql] = statement
        return statement
    }

    /// Runs `sql` with `values` (INSERT / UPDATE / DELETE).
    public func run(_ sql: String, _ values: [SQLiteValue] = []) throws {
        try prepare(sql).run(values)
    }

    /// All rows of a query.
    public func rows(_ sql: String, _ values: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        try prepare(sql).rows(values)
    }

    /// The first column of the first row, or nil.
    public func scalar(_ sql: String, _ values: [SQLiteValue] = []) throws -> SQLiteValue? {
        try rows(sql, values).first?.first
    }

    /// Rows changed by the last INSERT / UPDATE / DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// The rowid of the last INSERT.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Runs `body` in a transaction (`BEGIN IMMEDIATE` so writers queue instead of failing
    /// later); commits if it returns, rolls back if it throws.
    /// The three statements are prepared once (cached), not parsed again per transaction.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try run("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try run("COMMIT")
            return result
        } catch {
            try? run("ROLLBACK")
            throw error
        }
    }

    func error(code: Int32, sql: String?) -> SQLiteError {
        SQLiteError(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }
}
