internal import CSQLite
import Foundation

/// One database connection with a statement cache: a SQLite file, or a PostgreSQL schema
/// (see `StoreLocation`). The stores write SQLite's SQL; on PostgreSQL it is translated by
/// `PostgresDialect` and each statement is prepared once on the server.
///
/// Not `Sendable`: connections are used from one owner at a time. Wrap it in an actor
/// (or a lock) in the module that owns the data.
public final class Connection {
    enum Backend {
        case sqlite(OpaquePointer)
        case postgres(PostgresSession)
    }
    let backend: Backend
    /// The location string it was opened with; `":memory:"` keeps nothing.
    public let path: String
    private var cache: [String: Statement] = [:]
    /// Rows changed by the last statement on PostgreSQL (SQLite keeps its own count).
    var lastPostgresChanges = 0
    /// Inside `transaction`: a batch then joins it instead of opening its own.
    private var inTransaction = false

    /// Says on standard error what opening a database changed (a file mode tightened).
    public static let standardErrorWarning: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data("parley: warning: \(line)\n".utf8))
    }

    /// The lease this connection's writes must hold (PostgreSQL, a bot's own schema).
    public var fence: StoreLocation.Fence? {
        if case .postgres(let session) = backend { return session.fence }
        return nil
    }

    /// True when this connection is to PostgreSQL.
    public var isPostgres: Bool {
        if case .postgres = backend { return true }
        return false
    }

    /// Opens (creating if needed) the store at `path`, a `StoreLocation` string. A SQLite file
    /// is switched to WAL with `synchronous=NORMAL` (durable across a process crash, and fast)
    /// or, when the process's `StoreDurability` is `full`, `FULL` (across a power cut too).
    /// The file, its WAL and the folders created for it are owner-only; looser ones are
    /// tightened and `warn` told. A PostgreSQL schema is created if missing. `durability`
    /// overrides the process's for this connection.
    public init(path: String, busyTimeout: Duration = .seconds(5), durability: StoreDurability? = nil,
                warn: (String) -> Void = Connection.standardErrorWarning) throws {
        self.path = path
        if case .postgres(let url, let schema, let fence) = StoreLocation(path) {
            backend = .postgres(try PostgresSession(url: url, schema: schema, fence: fence))
            return
        }
        if path != ":memory:" && !path.isEmpty {
            try OwnerOnlyFiles.prepare(databaseAt: path, warn: warn)
        }
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(db)
            throw StoreError(code: code, message: "\(message): \(path)")
        }
        self.backend = .sqlite(db)
        StoreStatistics.count(db, path: path)
        let millis = busyTimeout.components.seconds * 1000 + busyTimeout.components.attoseconds / 1_000_000_000_000_000
        sqlite3_busy_timeout(db, Int32(clamping: millis))
        if path != ":memory:" {
            try execute("PRAGMA journal_mode=WAL")
            try execute("PRAGMA synchronous=" + (durability ?? StoreDurability.current).sqliteSynchronous)
        }
        try execute("PRAGMA foreign_keys=ON")
    }

    deinit {
        cache.removeAll()
        if case .sqlite(let handle) = backend { sqlite3_close_v2(handle) }
    }

    /// Runs one or more SQL statements that take no parameters.
    public func execute(_ sql: String) throws {
        guard case .sqlite(let handle) = backend else {
            if case .postgres(let session) = backend { try session.exec(sql) }
            return
        }
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? "error"
            sqlite3_free(message)
            throw StoreError(code: code, message: text, sql: sql)
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
    public func run(_ sql: String, _ values: [StoreValue] = []) throws {
        try prepare(sql).run(values)
    }

    /// All rows of a query.
    public func rows(_ sql: String, _ values: [StoreValue] = []) throws -> [[StoreValue]] {
        try prepare(sql).rows(values)
    }

    /// The first column of the first row, or nil.
    public func scalar(_ sql: String, _ values: [StoreValue] = []) throws -> StoreValue? {
        try rows(sql, values).first?.first
    }

    /// Rows changed by the last INSERT / UPDATE / DELETE.
    public var changes: Int {
        switch backend {
        case .sqlite(let handle): Int(sqlite3_changes(handle))
        case .postgres: lastPostgresChanges
        }
    }

    /// Runs `body` in a transaction (`BEGIN IMMEDIATE` so writers queue instead of failing
    /// later); commits if it returns, rolls back if it throws.
    /// The three statements are prepared once (cached), not parsed again per transaction.
    /// On PostgreSQL it is a READ COMMITTED transaction: rows that several processes contend
    /// for are locked by the statements themselves (`FOR UPDATE`, conditional updates).
    /// Inside a transaction already (a `StoreWriter` batch), `body` runs in a savepoint: if it
    /// throws, only its own changes are undone.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        if inTransaction { return try savepoint(body) }
        try control("BEGIN IMMEDIATE")
        inTransaction = true
        defer { inTransaction = false }
        do {
            let result = try body()
            try control("COMMIT")
            return result
        } catch {
            try? control("ROLLBACK")
            throw error
        }
    }

    /// Runs `statements` all or none and returns the rows each changed: on PostgreSQL in one
    /// round trip (a pipeline, wrapped in BEGIN … COMMIT unless inside `transaction`), on
    /// SQLite in a transaction (a lone statement runs alone: it is atomic by itself). For
    /// writes whose results the caller does not need between them.
    @discardableResult
    public func batch(_ statements: [(sql: String, values: [StoreValue])]) throws -> [Int] {
        guard statements.count > 1 else {
            guard let only = statements.first else { return [] }
            try run(only.sql, only.values)
            return [changes]
        }
        if case .postgres(let session) = backend {
            let pipelined = try statements.map { try prepare($0.sql).pipelined($0.values)! }
            let changed = try session.pipeline(pipelined, atomic: !inTransaction)
            lastPostgresChanges = changed.last ?? 0
            return changed
        }
        let run = { () throws -> [Int] in
            try statements.map { statement in
                try self.run(statement.sql, statement.values)
                return self.changes
            }
        }
        return inTransaction ? try run() : try transaction(run)
    }

    /// Runs `body` inside the open transaction; if it throws, its changes alone are undone.
    func savepoint<T>(_ body: () throws -> T) throws -> T {
        try control("SAVEPOINT part")
        do {
            let result = try body()
            try control("RELEASE part")
            return result
        } catch {
            try? control("ROLLBACK TO part")
            try? control("RELEASE part")
            throw error
        }
    }

    /// Reports the write-ahead log's size after each commit and turns SQLite's automatic
    /// checkpoint off: the caller checkpoints (`StoreWriter`). Nil for PostgreSQL or memory.
    func watchWAL() -> WALWatch? {
        guard case .sqlite(let handle) = backend, path != ":memory:", !path.isEmpty else { return nil }
        let watch = WALWatch()
        watch.install(on: handle)
        return watch
    }

    /// BEGIN, COMMIT, ROLLBACK: cached statements on SQLite, simple queries on PostgreSQL.
    private func control(_ sql: String) throws {
        switch backend {
        case .sqlite: try run(sql)
        case .postgres(let session): try session.exec(sql == "BEGIN IMMEDIATE" ? "BEGIN" : sql)
        }
    }

    func error(code: Int32, sql: String?) -> StoreError {
        guard case .sqlite(let handle) = backend else { return StoreError(code: code, message: "error", sql: sql) }
        return StoreError(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }
}
