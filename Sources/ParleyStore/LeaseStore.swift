import Foundation

/// Leases with fencing generations, and the processes that hold them, in a PostgreSQL
/// database several processes share (the host's schema: `cluster_leases`, `cluster_processes`).
///
/// A lease is one row: its holder, a generation that grows by one at every change of hands,
/// and an expiry on the database's clock (so the machines' clocks never have to agree). It is
/// taken only once expired, renewed only by its holder at its generation before it expires,
/// and released by setting the expiry to the past. `Fencing` refuses the writes of a holder
/// whose generation is gone.
///
/// The connection is used under a lock, like every store's.
public final class LeaseStore: @unchecked Sendable {
    private let lock = NSLock()
    private let connection: Connection

    /// One lease as stored, with the database's time it was read at.
    public struct Lease: Sendable, Equatable {
        public var name: String
        public var holder: String
        public var generation: Int64
        public var acquiredAt: Double
        public var renewedAt: Double
        public var expiresAt: Double
        /// The database's clock when it was read.
        public var now: Double
        public var isLive: Bool { expiresAt > now }
    }

    /// A process of the cluster, as it last reported itself.
    public struct Member: Sendable, Equatable {
        public var id: String
        public var host: String
        public var pid: Int64
        public var startedAt: Double
        public var seenAt: Double
        /// The bots its configuration runs (it holds the leases of some of them).
        public var bots: [String]
        /// The database's clock when it was read.
        public var now: Double
    }

    static let migrations = Migrations(name: "cluster", steps: [], postgresSteps: ["""
        CREATE TABLE cluster_leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, generation BIGINT NOT NULL,
                                     acquired_at DOUBLE PRECISION NOT NULL, renewed_at DOUBLE PRECISION NOT NULL,
                                     expires_at DOUBLE PRECISION NOT NULL);
        CREATE TABLE cluster_processes (id TEXT PRIMARY KEY, host TEXT NOT NULL, pid BIGINT NOT NULL,
                                        started_at DOUBLE PRECISION NOT NULL, seen_at DOUBLE PRECISION NOT NULL);
        """,
        // Each process reports the bots it runs: the live processes that share a bot split the
        // bots between them (`LeaseKeeper`'s fair share).
        """
        ALTER TABLE cluster_processes ADD COLUMN bots TEXT NOT NULL DEFAULT '';
        """])

    /// The database's clock, in seconds since 1970.
    private static let now = "extract(epoch from clock_timestamp())"

    /// Opens the leases of the PostgreSQL database at `location` (its host schema).
    /// - Throws: `StoreError` when it cannot be reached, or when `location` is a SQLite file
    ///   (one process per file needs no lease: the file lock keeps others out).
    public init(location: String) throws {
        guard case .postgres(let url, _, _) = StoreLocation(location) else {
            throw StoreError(code: 1, message: "leases need PostgreSQL (storage.url); \(location) is a SQLite file")
        }
        connection = try Self.migrations.open(StoreLocation.postgres(url, schema: StoreLocation.defaultSchema))
    }

    private func with<T>(_ body: (Connection) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(connection)
    }

    /// Takes lease `name` for `holder` for `seconds` if it is free, or expired for at least
    /// `expiredFor` seconds; the new generation, or nil while another holds it (or it expired
    /// more recently).
    public func acquire(_ name: String, holder: String, seconds: Double, expiredFor: Double = 0) throws -> Int64? {
        try with { db in
            try db.rows("""
                INSERT INTO cluster_leases (name, holder, generation, acquired_at, renewed_at, expires_at)
                VALUES (?, ?, 1, \(Self.now), \(Self.now), \(Self.now) + ?)
                ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, generation = cluster_leases.generation + 1,
                    acquired_at = excluded.acquired_at, renewed_at = excluded.renewed_at, expires_at = excluded.expires_at
                WHERE cluster_leases.expires_at < \(Self.now) - ?
                RETURNING generation
                """, [.text(name), .text(holder), .real(seconds), .real(expiredFor)]).first?.first?.int64
        }
    }

    /// Extends lease `name` by `seconds` from now if `holder` still holds it at `generation`
    /// and it has not expired; false otherwise (it is lost: stop acting for it).
    public func renew(_ name: String, holder: String, generation: Int64, seconds: Double) throws -> Bool {
        try with { db in
            try db.run("""
                UPDATE cluster_leases SET renewed_at = \(Self.now), expires_at = \(Self.now) + ?
                WHERE name = ? AND holder = ? AND generation = ? AND expires_at >= \(Self.now)
                """, [.real(seconds), .text(name), .text(holder), .integer(generation)])
            return db.changes == 1
        }
    }

    /// Gives lease `name` up at once (a clean shutdown, a hand-over): another process may take
    /// it now instead of after its expiry. It expires now, not in the past: an orphan (taken
    /// beyond a share, see `acquire`'s `expiredFor`) is one left free for a while since.
    public func release(_ name: String, holder: String, generation: Int64) throws {
        try with { db in
            try db.run("UPDATE cluster_leases SET expires_at = \(Self.now) WHERE name = ? AND holder = ? AND generation = ?",
                       [.text(name), .text(holder), .integer(generation)])
        }
    }

    /// Every lease, by name.
    public func leases() throws -> [Lease] {
        try with { db in
            try db.rows("""
                SELECT name, holder, generation, acquired_at, renewed_at, expires_at, \(Self.now) FROM cluster_leases ORDER BY name
                """).map { row in
                Lease(name: row[0].string ?? "", holder: row[1].string ?? "", generation: row[2].int64 ?? 0,
                      acquiredAt: row[3].double ?? 0, renewedAt: row[4].double ?? 0, expiresAt: row[5].double ?? 0, now: row[6].double ?? 0)
            }
        }
    }

    /// Records that process `id`, which runs `bots`, is alive (at start and at every renewal round).
    public func heartbeat(id: String, host: String, pid: Int64, bots: [String]) throws {
        try with { db in
            try db.run("""
                INSERT INTO cluster_processes (id, host, pid, started_at, seen_at, bots) VALUES (?, ?, ?, \(Self.now), \(Self.now), ?)
                ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at, bots = excluded.bots
                """, [.text(id), .text(host), .integer(pid), .text(Self.joined(bots))])
        }
    }

    /// How many processes seen within the last `seconds` run at least one of `bots` (a process
    /// counts itself once it has reported itself).
    public func peers(sharing bots: [String], seenWithin seconds: Double) throws -> Int {
        let mine = Set(bots)
        return try with { db in
            try db.rows("SELECT bots FROM cluster_processes WHERE seen_at >= \(Self.now) - ?", [.real(seconds)])
                .filter { row in !mine.isDisjoint(with: Self.split(row.first?.string ?? "")) }.count
        }
    }

    /// Bot ids as stored in one column: one a line (an id holds no line break).
    private static func joined(_ bots: [String]) -> String { bots.joined(separator: "\n") }
    private static func split(_ stored: String) -> [String] { stored.split(separator: "\n").map(String.init) }

    /// Removes process `id` (a clean shutdown), and any not seen for `staleAfter` seconds.
    public func forget(id: String, staleAfter: Double) throws {
        try with { db in
            try db.run("DELETE FROM cluster_processes WHERE id = ? OR seen_at < \(Self.now) - ?", [.text(id), .real(staleAfter)])
        }
    }

    /// Every process that reported itself, oldest first.
    public func members() throws -> [Member] {
        try with { db in
            try db.rows("SELECT id, host, pid, started_at, seen_at, \(Self.now), bots FROM cluster_processes ORDER BY started_at, id").map { row in
                Member(id: row[0].string ?? "", host: row[1].string ?? "", pid: row[2].int64 ?? 0,
                       startedAt: row[3].double ?? 0, seenAt: row[4].double ?? 0, bots: Self.split(row[6].string ?? ""),
                       now: row[5].double ?? 0)
            }
        }
    }
}
