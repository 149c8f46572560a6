internal import CSQLite
import Foundation

/// A prepared statement. Owned by one `Connection`; finalized in `deinit`.
/// Not `Sendable`: use it only inside the connection's owner.
public final class Statement {
    private enum Backend {
        case sqlite(OpaquePointer)
        case postgres(PostgresSession, name: String, translated: PostgresDialect.Translated)
    }
    private let backend: Backend
    private unowned let connection: Connection
    public let sql: String

    init(connection: Connection, sql: String) throws {
        self.connection = connection
        self.sql = sql
        switch connection.backend {
        case .sqlite(let db):
            var statement: OpaquePointer?
            let code = sqlite3_prepare_v2(db, sql, -1, &statement, nil)
            guard code == SQLITE_OK, let statement else {
                throw connection.error(code: code, sql: sql)
            }
            backend = .sqlite(statement)
        case .postgres(let session):
            // Prepared on the server at its first run (and again after a reconnect).
            backend = .postgres(session, name: session.newStatementName(), translated: try PostgresDialect.translate(sql))
        }
    }

    deinit {
        if case .sqlite(let handle) = backend { sqlite3_finalize(handle) }
    }

    /// On PostgreSQL: the statement as a pipeline sends it with `values`.
    func pipelined(_ values: [StoreValue]) -> PostgresSession.PipelinedStatement? {
        guard case .postgres(_, let name, let translated) = backend else { return nil }
        return PostgresSession.PipelinedStatement(name: name, translated: translated, original: sql, values: values)
    }

    /// Binds `values` to the parameters `?1…?n`, after resetting the statement (SQLite only:
    /// PostgreSQL takes the values with each run).
    private func bind(_ handle: OpaquePointer, _ values: [StoreValue]) throws {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let int): code = sqlite3_bind_int64(handle, index, int)
            case .real(let double): code = sqlite3_bind_double(handle, index, double)
            case .text(let text):
                var text = text
                code = text.withUTF8 { buffer in
                    buffer.withMemoryRebound(to: CChar.self) {
                        parley_sqlite3_bind_text_transient(handle, index, $0.baseAddress, Int32($0.count))
                    }
                }
            case .blob(let data):
                code = data.withUnsafeBytes { parley_sqlite3_bind_blob_transient(handle, index, $0.baseAddress, Int32($0.count)) }
            }
            guard code == SQLITE_OK else { throw connection.error(code: code, sql: sql) }
        }
    }

    /// Runs the statement to completion (for INSERT / UPDATE / DELETE / DDL).
    public func run(_ values: [StoreValue] = []) throws {
        switch backend {
        case .sqlite(let handle):
            try bind(handle, values)
            defer { sqlite3_reset(handle) }
            while try step(handle) {}
        case .postgres(let session, let name, let translated):
            let result = try session.execute(name: name, translated: translated, original: sql, values: values)
            connection.lastPostgresChanges = result.changes
        }
    }

    /// Runs the statement and calls `row` for every result row.
    public func query(_ values: [StoreValue] = [], _ row: (Row) throws -> Void) throws {
        switch backend {
        case .sqlite(let handle):
            try bind(handle, values)
            defer { sqlite3_reset(handle) }
            while try step(handle) { try row(Row(source: .sqlite(handle))) }
        case .postgres(let session, let name, let translated):
            let result = try session.execute(name: name, translated: translated, original: sql, values: values)
            connection.lastPostgresChanges = result.changes
            for index in 0..<result.rowCount { try row(Row(source: .postgres(result, index))) }
        }
    }

    /// All result rows as arrays of values.
    public func rows(_ values: [StoreValue] = []) throws -> [[StoreValue]] {
        var result: [[StoreValue]] = []
        try query(values) { result.append($0.values) }
        return result
    }

    private func step(_ handle: OpaquePointer) throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error(code: code, sql: sql)
        }
    }
}

/// One result row, valid only inside the `query` callback.
/// Not `Sendable` and not to be stored: the statement moves on after the callback.
public struct Row {
    fileprivate enum Source {
        case sqlite(OpaquePointer)
        case postgres(PostgresResult, Int)
    }
    fileprivate let source: Source

    fileprivate init(source: Source) { self.source = source }

    public var count: Int {
        switch source {
        case .sqlite(let handle): Int(sqlite3_column_count(handle))
        case .postgres(let result, _): result.columnCount
        }
    }

    public subscript(index: Int) -> StoreValue {
        guard case .sqlite(let handle) = source else {
            if case .postgres(let result, let row) = source { return result.value(row: row, column: index) }
            return .null
        }
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            let bytes = sqlite3_column_text(handle, column)
            let length = Int(sqlite3_column_bytes(handle, column))
            guard let bytes else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self))
        case SQLITE_BLOB:
            let length = Int(sqlite3_column_bytes(handle, column))
            guard let bytes = sqlite3_column_blob(handle, column), length > 0 else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: length))
        default: return .null
        }
    }

    public var values: [StoreValue] { (0..<count).map { self[$0] } }
}
