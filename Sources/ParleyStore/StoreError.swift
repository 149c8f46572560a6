/// An error reported by the database: SQLite's result code (PostgreSQL's SQLSTATE mapped onto
/// the nearest one), the database's message and the SQL at fault.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The primary or extended SQLite result code (`SQLITE_BUSY` = 5, `SQLITE_CONSTRAINT` = 19, …).
    public var code: Int32
    public var message: String
    public var sql: String?
    /// PostgreSQL's five-character SQLSTATE (`23505` unique violation, `P0001` raised, …); nil on SQLite.
    public var sqlState: String?

    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// A PostgreSQL error: constraint violations (class 23) keep SQLite's code 19.
    init(postgresState state: String?, message: String, sql: String?) {
        self.init(code: state?.hasPrefix("23") == true ? 19 : 1, message: message, sql: sql)
        sqlState = state
    }

    /// The database cannot be reached (PostgreSQL down or the connection lost); worth retrying.
    static func unavailable(_ message: String) -> StoreError {
        var error = StoreError(code: unavailableCode, message: message)
        error.sqlState = "08006"
        return error
    }

    /// SQLITE_CANTOPEN: the code an unreachable database reports.
    static let unavailableCode: Int32 = 14

    /// True for a UNIQUE / PRIMARY KEY / CHECK violation (primary code 19).
    public var isConstraintViolation: Bool { code & 0xFF == 19 }

    /// True when the database could not be reached: the work may succeed later.
    public var isUnavailable: Bool { sqlState?.hasPrefix("08") == true }

    public var description: String {
        let what = sqlState.map { "PostgreSQL error \($0)" } ?? "SQLite error \(code)"
        if let sql { return "\(what): \(message) (in \(sql))" }
        return "\(what): \(message)"
    }
}
