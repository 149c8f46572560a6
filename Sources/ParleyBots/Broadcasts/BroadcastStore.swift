import Foundation
import ParleyCore
import ParleyStore
import Synchronization

/// Broadcast jobs and every recipient's state in SQLite or PostgreSQL. A job and all its recipients are
/// written in one transaction before the first send; outcomes are written in batches. A
/// restarted host finds `running` jobs and resumes them at their first pending recipient;
/// `paused` ones wait for an operator, `cancelled` ones keep their pending recipients unsent.
///
/// Shares the host's database file with the hub and the bots' engine, and its one writer
/// (`StoreHandle`): each has its own tables.
public final class BroadcastStore: Sendable {
    let store: StoreHandle
    /// True on PostgreSQL, which several processes share; on SQLite this process holds the
    /// store alone. Shared, a write is a round trip: a run writes its outcomes behind its back
    /// (`OutcomeRecorder`), and runs claim chunks of a job (`BroadcastStore+Claims`).
    public let isShared: Bool

    static let migrations = Migrations(name: "broadcast", steps: [
        """
        CREATE TABLE broadcast_jobs (
            id TEXT PRIMARY KEY, bot TEXT NOT NULL, origin TEXT NOT NULL, payload TEXT NOT NULL,
            rate REAL, state TEXT NOT NULL, created REAL NOT NULL, finished REAL,
            total INTEGER NOT NULL, sent INTEGER NOT NULL DEFAULT 0, failed INTEGER NOT NULL DEFAULT 0,
            templated INTEGER NOT NULL DEFAULT 1);
        CREATE TABLE broadcast_recipients (
            job TEXT NOT NULL, position INTEGER NOT NULL, target TEXT NOT NULL,
            state INTEGER NOT NULL DEFAULT 0, message_id TEXT, reason TEXT, attempts INTEGER NOT NULL DEFAULT 0, payload TEXT,
            PRIMARY KEY (job, position)) WITHOUT ROWID;
        CREATE INDEX broadcast_recipients_pending ON broadcast_recipients (job, state, position);
        """,
        // Jobs may now be `paused` and `cancelled` (their pending recipients stay pending): the
        // version step makes an older Parley refuse the database instead of reading those jobs
        // as damaged. Jobs to resume at start are found by state.
        """
        CREATE INDEX broadcast_jobs_state ON broadcast_jobs (state);
        """,
        // Audiences (`audiences:` in a bot file): each user's latest choice with its time and
        // source; an opt-out stays a row (subscribed 0), so a later import cannot add them back.
        // A job to an audience names it, and recipients who opted out while it ran are
        // `opted out` (state 3), neither sent nor failed.
        """
        CREATE TABLE audience_members (
            bot TEXT NOT NULL, audience TEXT NOT NULL, target TEXT NOT NULL, subscribed INTEGER NOT NULL,
            source TEXT NOT NULL, changed REAL NOT NULL,
            PRIMARY KEY (bot, audience, target)) WITHOUT ROWID;
        CREATE TABLE audience_imports (
            bot TEXT NOT NULL, audience TEXT NOT NULL, file TEXT NOT NULL, imported REAL NOT NULL, added INTEGER NOT NULL,
            PRIMARY KEY (bot, audience)) WITHOUT ROWID;
        ALTER TABLE broadcast_jobs ADD COLUMN audience TEXT;
        ALTER TABLE broadcast_jobs ADD COLUMN opted_out INTEGER NOT NULL DEFAULT 0;
        """,
        claimColumns(real: "REAL"),
    ], postgresSteps: [
        // The tables as SQLite's steps leave them, created at once. Text that lists are
        // ordered by compares in byte order, as in SQLite (COLLATE "C").
        """
        CREATE TABLE broadcast_jobs (
            id TEXT COLLATE "C" PRIMARY KEY, bot TEXT NOT NULL, origin TEXT NOT NULL, payload TEXT NOT NULL,
            rate DOUBLE PRECISION, state TEXT NOT NULL, created DOUBLE PRECISION NOT NULL, finished DOUBLE PRECISION,
            total BIGINT NOT NULL, sent BIGINT NOT NULL DEFAULT 0, failed BIGINT NOT NULL DEFAULT 0,
            templated BIGINT NOT NULL DEFAULT 1, audience TEXT, opted_out BIGINT NOT NULL DEFAULT 0);
        CREATE INDEX broadcast_jobs_state ON broadcast_jobs (state);
        CREATE TABLE broadcast_recipients (
            job TEXT NOT NULL, position BIGINT NOT NULL, target TEXT NOT NULL,
            state BIGINT NOT NULL DEFAULT 0, message_id TEXT, reason TEXT, attempts BIGINT NOT NULL DEFAULT 0, payload TEXT,
            PRIMARY KEY (job, position));
        CREATE INDEX broadcast_recipients_pending ON broadcast_recipients (job, state, position);
        CREATE TABLE audience_members (
            bot TEXT COLLATE "C" NOT NULL, audience TEXT COLLATE "C" NOT NULL, target TEXT COLLATE "C" NOT NULL,
            subscribed BIGINT NOT NULL, source TEXT NOT NULL, changed DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (bot, audience, target));
        CREATE TABLE audience_imports (
            bot TEXT NOT NULL, audience TEXT NOT NULL, file TEXT NOT NULL, imported DOUBLE PRECISION NOT NULL, added BIGINT NOT NULL,
            PRIMARY KEY (bot, audience));
        """,
        claimColumns(real: "DOUBLE PRECISION"),
    ])

    /// Pending recipients are claimed in chunks by the runs sending their job (see
    /// `claim(job:by:limit:now:until:)`): a claim is one row naming a range of positions, its
    /// run and until when (the recipients' rows are not written to claim them); a recipient's
    /// outcome names the run that sent it (`sent_by`).
    private static func claimColumns(real: String) -> String {
        """
        CREATE TABLE broadcast_claims (
            job TEXT NOT NULL, low INTEGER NOT NULL, high INTEGER NOT NULL, claimant TEXT NOT NULL, until \(real) NOT NULL,
            PRIMARY KEY (job, low));
        ALTER TABLE broadcast_recipients ADD COLUMN sent_by TEXT;
        """
    }

    /// Recipient states as stored.
    enum RecipientState: Int64 { case pending = 0, sent = 1, failed = 2, optedOut = 3 }

    /// Counts opt-outs recorded through this store: a running job to an audience compares it
    /// before each send and reads its page's opt-outs again when it moved (see `BroadcastRunner`).
    let optOutGeneration = Atomic<UInt64>(0)

    /// Opens (creating and migrating) the database at `path`, a SQLite file (`":memory:"` keeps
    /// nothing) or a `postgres://…#schema` location.
    public init(path: String) throws(BroadcastError) {
        do {
            store = try StoreHandle(path: path, migrations: Self.migrations)
            isShared = store.isPostgres
        } catch {
            throw BroadcastError(.storage, "cannot open the broadcast store at \(StoreLocation(path).shown): \(error)")
        }
    }

    /// Runs `body` with the connection; storage errors become `BroadcastError(.storage)`.
    func access<T: Sendable>(_ what: String, _ body: (Connection) throws -> T) throws(BroadcastError) -> T {
        do {
            return try store.run(body)
        } catch let error as BroadcastError {
            throw error
        } catch {
            throw BroadcastError(.storage, "cannot \(what): \(error)")
        }
    }

    // MARK: - Jobs

    /// Stores a new job and all its recipients (pending) in one transaction. Returns false,
    /// changing nothing, when a job with this id exists (a repeated start is a resume).
    /// `payloads`, when given, holds each recipient's own payload (same order and count).
    public func create(id: String, bot: String, origin: String, message: BroadcastMessage, ratePerSecond: Double?,
                       recipients: [Channel], payloads: [JSONValue]? = nil, audience: String? = nil, now: Date) throws(BroadcastError) -> Bool {
        if let payloads, payloads.count != recipients.count {
            throw BroadcastError(.invalidMessage, "broadcast '\(id)': \(payloads.count) payloads for \(recipients.count) recipients")
        }
        return try access("store broadcast \(id)") { connection in
            try connection.transaction {
                // The id is the claim: of two processes creating one job (a schedule's run), the
                // second changes nothing and resumes the first's.
                try connection.run(
                    "INSERT OR IGNORE INTO broadcast_jobs (id, bot, origin, payload, rate, state, created, total, templated, audience) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [.text(id), .text(bot), .text(origin), .text(message.payload.compactJSON()),
                     ratePerSecond.map { .real($0) } ?? .null, .text(BroadcastJob.State.running.rawValue),
                     .real(now.timeIntervalSince1970), .integer(Int64(recipients.count)), StoreValue(message.isTemplate),
                     StoreValue(audience)])
                guard connection.changes == 1 else { return false }
                // Many rows a statement: on PostgreSQL each statement is a round trip.
                if connection.isPostgres {
                    try Self.insertRecipients(id: id, recipients: recipients, payloads: payloads, into: connection)
                    return true
                }
                var start = 0
                while start < recipients.count {
                    let count = min(Self.rowsPerInsert, recipients.count - start)
                    var values: [StoreValue] = []
                    values.reserveCapacity(count * 4)
                    for position in start..<start + count {
                        values += [.text(id), .integer(Int64(position)), .text(recipients[position].target),
                                   payloads.map { StoreValue.text($0[position].compactJSON()) } ?? .null]
                    }
                    try connection.run("INSERT INTO broadcast_recipients (job, position, target, payload) VALUES "
                                       + Array(repeating: "(?, ?, ?, ?)", count: count).joined(separator: ", "), values)
                    start += count
                }
                return true
            }
        }
    }

    /// Recipients written per INSERT (and outcomes per UPDATE) on SQLite: a few hundred
    /// parameters, far below SQLite's limit; the statement for a full chunk is prepared once.
    static let rowsPerInsert = 250

    /// On PostgreSQL: `rowsPerArrayInsert` recipients a statement, a column an array (see
    /// `PostgresArray`): a list of values costs PostgreSQL more to bind and plan than the rows'
    /// own work.
    private static func insertRecipients(id: String, recipients: [Channel], payloads: [JSONValue]?, into connection: Connection) throws {
        var start = 0
        while start < recipients.count {
            let range = start..<min(start + rowsPerArrayInsert, recipients.count)
            try connection.run("""
                INSERT INTO broadcast_recipients (job, position, target, payload)
                SELECT CAST(? AS TEXT), v.position, v.target, v.payload FROM unnest(CAST(? AS BIGINT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[])) AS v(position, target, payload)
                """, [.text(id), PostgresArray.literal(range.map { .integer(Int64($0)) }),
                      PostgresArray.literal(range.map { .text(recipients[$0].target) }),
                      PostgresArray.literal(range.map { position in payloads.map { .text($0[position].compactJSON()) } ?? .null })])
            start = range.upperBound
        }
    }

    static let rowsPerArrayInsert = 10_000

    /// The job `id`, or nil.
    public func job(_ id: String) throws(BroadcastError) -> BroadcastJob? {
        try jobs(where: "WHERE id = ?", [.text(id)]).first
    }

    /// Every job, newest first.
    public func jobs() throws(BroadcastError) -> [BroadcastJob] {
        try jobs(where: "", [])
    }

    /// Jobs not finished (to resume after a restart), oldest first.
    public func unfinishedJobs() throws(BroadcastError) -> [BroadcastJob] {
        try jobs(where: "WHERE state = ?", [.text(BroadcastJob.State.running.rawValue)]).reversed()
    }

    private func jobs(where clause: String, _ values: [StoreValue]) throws(BroadcastError) -> [BroadcastJob] {
        let rows = try access("read broadcast jobs") { connection in
            try connection.rows("""
                SELECT id, bot, origin, payload, rate, state, created, finished, total, sent, failed, templated, audience, opted_out
                FROM broadcast_jobs \(clause) ORDER BY created DESC, id DESC
                """, values)
        }
        return try rows.map { row throws(BroadcastError) in try Self.job(from: row) }
    }

    private static func job(from row: [StoreValue]) throws(BroadcastError) -> BroadcastJob {
        let id = row[0].string ?? ""
        guard let payloadText = row[3].string, let payload = try? JSONValue.parse(Data(payloadText.utf8)),
              let state = row[5].string.flatMap(BroadcastJob.State.init(rawValue:)) else {
            throw BroadcastError(.storage, "broadcast job '\(id)' is damaged in storage")
        }
        return BroadcastJob(
            id: id, bot: row[1].string ?? "", origin: row[2].string ?? "",
            message: row[11].int == 0 ? BroadcastMessage(literal: payload) : try BroadcastMessage(payload: payload),
            ratePerSecond: row[4].double, state: state, created: Date(timeIntervalSince1970: row[6].double ?? 0),
            finished: row[7].double.map(Date.init(timeIntervalSince1970:)),
            total: row[8].int ?? 0, sent: row[9].int ?? 0, failed: row[10].int ?? 0, audience: row[12].string,
            optedOut: row[13].int ?? 0)
    }
}
