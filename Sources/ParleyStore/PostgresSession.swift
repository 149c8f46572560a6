internal import CPQ
import Foundation

/// One libpq connection to a PostgreSQL schema, with its statements prepared once.
///
/// Not `Sendable`, like the SQLite handle: the owner's lock serializes its use. A connection
/// that breaks (the server restarted, the network dropped) is reset on the next use, at most
/// once per `reconnectBackoff` step (doubling to 5 s), so a store whose database is away fails
/// fast with `unavailable` instead of blocking its caller; its statements are prepared again
/// after the reset. Nothing queued in memory is dropped: callers keep what they could not write.
final class PostgresSession {
    var handle: OpaquePointer
    let url: String
    let schema: String
    /// The lease every write on this connection must still hold (a bot's own schemas).
    let fence: StoreLocation.Fence?
    /// Statement names known to the server on the current connection.
    var prepared: Set<String> = []
    private var nextName = 0
    private var backoff = PostgresSession.firstBackoff
    private var nextReset = ContinuousClock.now

    static let firstBackoff = Duration.milliseconds(100)
    static let longestBackoff = Duration.seconds(5)
    /// How long one connection attempt may take.
    static let connectTimeoutSeconds = 5

    init(url: String, schema: String, fence: StoreLocation.Fence? = nil) throws {
        self.url = url
        self.schema = schema
        self.fence = fence
        handle = try Self.connect(url)
        try setUp()
    }

    deinit { PQfinish(handle) }

    private static func connect(_ url: String) throws -> OpaquePointer {
        let keywords = ["dbname", "connect_timeout", "application_name"]
        let values = [url, String(connectTimeoutSeconds), "parley"]
        // `dbname` given a URL is expanded by libpq (expand_dbname = 1), and the other keys add to it.
        let connection = withCStrings(keywords) { keys in
            withCStrings(values) { vals in PQconnectdbParams(keys, vals, 1) }
        }
        guard let connection else { throw StoreError(code: 7, message: "out of memory opening \(StoreLocation.withoutPassword(url))") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.trimmed(PQerrorMessage(connection))
            PQfinish(connection)
            throw StoreError.unavailable("cannot connect to \(StoreLocation.withoutPassword(url)): \(message)")
        }
        return connection
    }

    /// The schema made (once, by whichever process comes first) and put first on the search
    /// path; the fence, if any, set for the triggers `Fencing` installs to read.
    private func setUp() throws {
        let quoted = "\"\(schema)\""
        // Concurrent CREATE SCHEMA IF NOT EXISTS can still collide in the catalog: serialize it.
        // One string is one implicit transaction, so the lock is the transaction's, released
        // only once the schema is committed (a session lock unlocked in the same string let the
        // next process in before the commit, and its CREATE failed on the catalog's unique index).
        try exec("SET client_min_messages TO warning; SELECT pg_advisory_xact_lock(4242); CREATE SCHEMA IF NOT EXISTS \(quoted); SET search_path TO \(quoted)")
        if StoreDurability.current == .full { try exec("SET synchronous_commit TO on") }
        if let fence {
            let value = "\(fence.lease) \(fence.generation)".replacingOccurrences(of: "'", with: "''")
            try exec("SET parley.fence TO '\(value)'")
        }
    }

    var isBroken: Bool { PQstatus(handle) != CONNECTION_OK }

    /// Resets a broken connection, no more often than the backoff allows.
    func reviveIfBroken() throws {
        // A server that went away (a restart, a fast shutdown) has told this idle connection
        // so and closed it, unread: read it now (without blocking: libpq's socket is
        // non-blocking), so the statement goes to a fresh connection instead of failing with
        // "server closed the connection unexpectedly" — the first statement of every store
        // after a database restart did (a schedule's catch-up read lost its run).
        if !isBroken, PQtransactionStatus(handle) == PQTRANS_IDLE {
            for _ in 0..<2 where !isBroken { _ = PQconsumeInput(handle) }
        }
        guard isBroken else { return }
        let now = ContinuousClock.now
        guard now >= nextReset else {
            throw StoreError.unavailable("PostgreSQL \(StoreLocation.withoutPassword(url)) is unreachable (retrying)")
        }
        PQreset(handle)
        prepared.removeAll()
        guard !isBroken else {
            nextReset = now + backoff
            backoff = min(backoff * 2, Self.longestBackoff)
            throw StoreError.unavailable("PostgreSQL \(StoreLocation.withoutPassword(url)) is unreachable: \(Self.trimmed(PQerrorMessage(handle)))")
        }
        backoff = Self.firstBackoff
        try setUp()
    }

    /// Runs SQL without parameters (one or more statements).
    func exec(_ sql: String) throws {
        try reviveIfBroken()
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result, sql: sql)
    }

    /// A name for a statement to prepare.
    func newStatementName() -> String {
        nextName += 1
        return "p\(nextName)"
    }

    /// Runs the prepared statement `name` (preparing it on this connection first if needed).
    func execute(name: String, translated: PostgresDialect.Translated, original: String, values: [StoreValue]) throws -> PostgresResult {
        try reviveIfBroken()
        if !prepared.contains(name) {
            let result = PQprepare(handle, name, translated.sql, 0, nil)
            defer { PQclear(result) }
            try check(result, sql: original)
            prepared.insert(name)
        }
        guard values.count == translated.parameterCount else {
            throw StoreError(code: 25, message: "\(values.count) values for \(translated.parameterCount) parameters", sql: original)
        }
        let result = Self.withParameters(values) { pointers, lengths, formats in
            PQexecPrepared(handle, name, Int32(values.count), pointers, lengths, formats, 0)
        }
        do {
            try check(result, sql: original)
        } catch {
            PQclear(result)
            throw error
        }
        return PostgresResult(result!)
    }

    private func check(_ result: OpaquePointer?, sql: String) throws {
        guard let result else { throw StoreError.unavailable("PostgreSQL: \(Self.trimmed(PQerrorMessage(handle)))") }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: return
        default:
            throw error(of: result, sql: sql)
        }
    }

    /// The error a failed result reports: `unavailable` when the connection or server went away.
    func error(of result: OpaquePointer, sql: String) -> StoreError {
        let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
        let message = Self.trimmed(PQresultErrorMessage(result))
        if isBroken || state?.hasPrefix("08") == true || state?.hasPrefix("57P") == true {
            return StoreError.unavailable("PostgreSQL \(StoreLocation.withoutPassword(url)): \(message)")
        }
        return StoreError(postgresState: state, message: message, sql: sql)
    }

    static func trimmed(_ text: UnsafePointer<CChar>?) -> String {
        text.map { String(cString: $0) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown error"
    }

    /// Parameters as libpq wants them: text for numbers and strings (the server infers each
    /// type from the statement), binary for blobs (raw bytes into `bytea`), null pointers for NULL.
    static func withParameters<T>(_ values: [StoreValue],
                                          _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> T) -> T {
        var buffers: [UnsafeMutablePointer<CChar>?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        buffers.reserveCapacity(values.count)
        defer { for buffer in buffers { buffer?.deallocate() } }
        for value in values {
            let bytes: [UInt8]?
            var binary = false
            switch value {
            case .null: bytes = nil
            case .integer(let int): bytes = Array(String(int).utf8)
            case .real(let double): bytes = Array(double.postgresText.utf8)
            case .text(let text): bytes = Array(text.utf8)
            case .blob(let data): bytes = Array(data); binary = true
            }
            if let bytes {
                let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
                bytes.withUnsafeBufferPointer { source in
                    source.withMemoryRebound(to: CChar.self) { buffer.update(from: $0.baseAddress!, count: bytes.count) }
                }
                buffer[bytes.count] = 0
                buffers.append(buffer)
                lengths.append(Int32(bytes.count))
            } else {
                buffers.append(nil)
                lengths.append(0)
            }
            formats.append(binary ? 1 : 0)
        }
        return buffers.withUnsafeBufferPointer { pointers in
            pointers.withMemoryRebound(to: UnsafePointer<CChar>?.self) { constPointers in
                body(constPointers.baseAddress, lengths, formats)
            }
        }
    }
}

/// The rows of one statement's result, read as `StoreValue`s by the column's type.
final class PostgresResult {
    let handle: OpaquePointer
    let rowCount: Int
    let columnCount: Int
    private let kinds: [Kind]

    enum Kind { case integer, real, numeric, boolean, bytes, text }

    init(_ handle: OpaquePointer) {
        self.handle = handle
        rowCount = Int(PQntuples(handle))
        columnCount = Int(PQnfields(handle))
        kinds = (0..<Int32(PQnfields(handle))).map { column in
            switch PQftype(handle, column) {
            case 20, 21, 23, 26: .integer      // int8, int2, int4, oid
            case 700, 701: .real               // float4, float8
            case 1700: .numeric                // numeric: sum() and avg() of integers
            case 16: .boolean
            case 17: .bytes                    // bytea, in text format as \x hex
            default: .text
            }
        }
    }

    deinit { PQclear(handle) }

    /// Rows changed by an INSERT / UPDATE / DELETE.
    var changes: Int { Int(String(cString: PQcmdTuples(handle))) ?? 0 }

    func value(row: Int, column: Int) -> StoreValue {
        let r = Int32(row), c = Int32(column)
        if PQgetisnull(handle, r, c) != 0 { return .null }
        let length = Int(PQgetlength(handle, r, c))
        guard let bytes = PQgetvalue(handle, r, c) else { return .null }
        let text = bytes.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
        switch kinds[column] {
        case .integer: return Int64(text).map { .integer($0) } ?? .text(text)
        case .real: return Double(text).map { .real($0) } ?? .text(text)
        case .numeric:
            if let int = Int64(text) { return .integer(int) }
            return Double(text).map { .real($0) } ?? .text(text)
        case .boolean: return .integer(text == "t" ? 1 : 0)
        case .bytes: return .blob(Self.hexBytes(text))
        case .text: return .text(text)
        }
    }

    /// `\x48656c6c6f` → the bytes (bytea's text output).
    private static func hexBytes(_ text: String) -> Data {
        var data = Data()
        let digits = Array(text.utf8.dropFirst(2))
        data.reserveCapacity(digits.count / 2)
        var index = 0
        func nibble(_ byte: UInt8) -> UInt8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            default: byte &- UInt8(ascii: "A") &+ 10
            }
        }
        while index + 1 < digits.count {
            data.append(nibble(digits[index]) << 4 | nibble(digits[index + 1]))
            index += 2
        }
        return data
    }
}

extension Double {
    /// Text PostgreSQL parses back to the same double (Swift's shortest round-trip form).
    fileprivate var postgresText: String {
        if isNaN { return "NaN" }
        if isInfinite { return self > 0 ? "Infinity" : "-Infinity" }
        return description
    }
}

private func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> T) -> T {
    let copies = strings.map { strdup($0) } + [nil]
    defer { for copy in copies { free(copy) } }
    return copies.withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { body($0.baseAddress!) }
    }
}
