/// An error reported by SQLite: the result code, SQLite's message and the SQL at fault.
public struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The primary or extended SQLite result code (`SQLITE_BUSY` = 5, `SQLITE_CONSTRAINT` = 19, …).
    public var code: Int32
    public var message: String
    public var sql: String?

    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// True for a UNIQUE / PRIMARY KEY / CHECK violation (primary code 19).
    public var isConstraintViolation: Bool { code & 0xFF == 19 }

    public var description: String {
        if let sql { return "SQLite error \(code): \(message) (in \(sql))" }
        return "SQLite error \(code): \(message)"
    }
}
