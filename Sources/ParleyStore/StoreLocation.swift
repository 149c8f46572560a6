/// Where one store's tables live: a SQLite file (or `:memory:`), or a schema of a PostgreSQL
/// database that several Parley processes share.
///
/// Stores are opened by a location string so every store keeps its one `path` parameter:
/// `postgres://user@host:port/db#schema` (or `postgresql://`) names a PostgreSQL schema, anything
/// else a SQLite file. The fragment is Parley's, not libpq's: each SQLite file of a host (the
/// host's, each bot's outbox, each Matrix account's) becomes one schema, so their tables keep
/// their names side by side.
///
/// A bot's own schemas carry its lease as a fence (`#parley_support;fence=support:7`): every
/// write on that connection is refused by the database once the lease has passed to another
/// process (see `Fence`).
public enum StoreLocation: Sendable, Hashable {
    case sqlite(path: String)
    case postgres(url: String, schema: String, fence: Fence? = nil)

    /// A lease and the generation this process holds it at.
    public struct Fence: Sendable, Hashable {
        public var lease: String
        public var generation: Int64
        public init(lease: String, generation: Int64) {
            self.lease = lease
            self.generation = generation
        }
    }

    /// The schema used when a PostgreSQL location names none.
    public static let defaultSchema = "parley"

    public init(_ text: String) {
        guard Self.isPostgresURL(text) else {
            self = .sqlite(path: text)
            return
        }
        guard let hash = text.firstIndex(of: "#") else {
            self = .postgres(url: text, schema: Self.defaultSchema)
            return
        }
        let fragment = text[text.index(after: hash)...]
        let parts = fragment.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
        let schema = parts.first.map(String.init) ?? ""
        var fence: Fence?
        if parts.count == 2, parts[1].hasPrefix("fence="), let colon = parts[1].lastIndex(of: ":"),
           let generation = Int64(parts[1][parts[1].index(after: colon)...]) {
            fence = Fence(lease: String(parts[1].dropFirst("fence=".count)[..<colon]), generation: generation)
        }
        self = .postgres(url: String(text[..<hash]), schema: schema.isEmpty ? Self.defaultSchema : schema, fence: fence)
    }

    /// True for a SQLite database in memory (`:memory:` or no path): each connection to one
    /// is a database of its own, so it has no readers and shares no writer.
    public static func isMemory(_ text: String) -> Bool { text == ":memory:" || text.isEmpty }

    /// True for a `postgres://` or `postgresql://` URL.
    public static func isPostgresURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// The location string of schema `schema` in the PostgreSQL database at `url`.
    public static func postgres(_ url: String, schema: String, fence: Fence? = nil) -> String {
        let base = url.firstIndex(of: "#").map { String(url[..<$0]) } ?? url
        let fenced = fence.map { ";fence=\($0.lease):\($0.generation)" } ?? ""
        return "\(base)#\(schemaName(schema))\(fenced)"
    }

    /// `name` as a schema name: lower-case letters, digits and `_` (a bot or account name may
    /// hold `-`, `.`, `@` or `:`), at most 63 bytes (PostgreSQL's identifier limit), never empty.
    public static func schemaName(_ name: String) -> String {
        var result = ""
        for scalar in name.lowercased().unicodeScalars {
            let allowed = (scalar >= "a" && scalar <= "z") || (scalar >= "0" && scalar <= "9") || scalar == "_"
            result.unicodeScalars.append(allowed ? scalar : "_")
        }
        if result.isEmpty { result = defaultSchema }
        if let first = result.unicodeScalars.first, first >= "0" && first <= "9" { result = "p_" + result }
        return String(result.utf8.prefix(63).map { Character(UnicodeScalar($0)) })
    }

    /// For messages: the path, or the URL without its password.
    public var shown: String {
        switch self {
        case .sqlite(let path): return path
        case .postgres(let url, let schema, _): return "\(Self.withoutPassword(url)) (schema \(schema))"
        }
    }

    /// `postgres://user:secret@host/db` → `postgres://user:***@host/db`: a URL in a log line or
    /// an error must not carry the password.
    public static func withoutPassword(_ url: String) -> String {
        guard let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].lastIndex(of: "@") else { return url }
        let credentials = url[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return url }
        return String(url[..<colon]) + ":***" + String(url[at...])
    }
}
