import Foundation
import ParleyStore

/// Claims: how several runs of one job — in several processes on a shared PostgreSQL — send
/// it together, each recipient once. A run claims the next pending recipients nobody holds
/// (a chunk), sends them, and claims again. A claim is one row (`broadcast_claims`: the range
/// of positions, the run, until when), not a write to each recipient's row: claiming a chunk
/// of 512 by marking its rows made PostgreSQL write every recipient twice, and the job's
/// sends wait on that. Runs claiming at once take turns for the claim's few statements (a
/// transaction lock per job on PostgreSQL, the write lock on SQLite), so two never pick the
/// same recipients. A claim lapses at its `until`: the run renews it while it sends, and the
/// chunk of a run that died is taken by another once it lapsed.
///
/// Times are the runs' clocks (seconds since 1970): processes sharing a database are taken to
/// agree on the time within a few seconds, far less than a claim lasts.
extension BroadcastStore {
    /// Claims up to `limit` pending recipients of `job` that no run holds (never claimed,
    /// released, or lapsed before `now`) for `claimant` until `until`; returns them in order.
    public func claim(job: String, by claimant: String, limit: Int, now: Date, until: Date) throws(BroadcastError) -> [BroadcastRecipient] {
        let rows = try access("claim recipients of \(job)") { connection in
            try connection.transaction {
                // The turn is taken, and lapsed claims go, before the pick reads the claims (on
                // SQLite the transaction's write lock is the turn). One round trip for both.
                var first: [(sql: String, values: [StoreValue])] = []
                if connection.isPostgres { first.append(("SELECT pg_advisory_xact_lock(hashtext(CAST(? AS TEXT)))", [.text("broadcast claims " + job)])) }
                first.append(("DELETE FROM broadcast_claims WHERE job = ? AND until < ?", [.text(job), .real(now.timeIntervalSince1970)]))
                try connection.batch(first)
                // The first free recipient (pending, in no claim), then the pending ones from it
                // up to the next claim: all free, as claims never overlap. A claim's range never
                // spans another's, so a lapsed claim's rest is never hidden by a range of a run
                // that is alive, and the one claim that can hold a position is the one with the
                // highest `low` at or below it (a seek, not a scan of the claims). The first is
                // found once (materialized): evaluated per row, or as a MIN over every free
                // recipient, it made a claim cost 45-80 ms on PostgreSQL for a job of 20,000.
                let pick = """
                    WITH first AS MATERIALIZED (
                        SELECT r.position FROM broadcast_recipients r WHERE r.job = ? AND r.state = 0
                          AND COALESCE((SELECT c.high FROM broadcast_claims c WHERE c.job = r.job AND c.low <= r.position
                                        ORDER BY c.low DESC LIMIT 1), -1) < r.position
                        ORDER BY r.position LIMIT 1)
                    SELECT r.position, r.target, r.attempts, r.payload FROM broadcast_recipients r, first f
                    WHERE r.job = ? AND r.state = 0 AND r.position >= f.position
                      AND r.position < COALESCE((SELECT MIN(n.low) FROM broadcast_claims n WHERE n.job = ? AND n.low > f.position), \(Int64.max))
                    ORDER BY r.position LIMIT ?
                    """
                let pickValues: [StoreValue] = [.text(job), .text(job), .text(job), .integer(Int64(limit))]
                let claimRow: [StoreValue] = [.text(job), .text(claimant), .real(until.timeIntervalSince1970)]
                guard connection.isPostgres else {
                    let rows = try connection.rows(pick, pickValues)
                    guard let low = rows.first?[0].int64, let high = rows.last?[0].int64 else { return rows }
                    try connection.run("INSERT INTO broadcast_claims (job, low, high, claimant, until) VALUES (?, ?, ?, ?, ?)",
                                       [.text(job), .integer(low), .integer(high), .text(claimant), .real(until.timeIntervalSince1970)])
                    return rows
                }
                // PostgreSQL picks and claims in one statement (a round trip less).
                return try connection.rows("""
                    WITH picked AS (\(pick)),
                    claimed AS (INSERT INTO broadcast_claims (job, low, high, claimant, until)
                                SELECT ?, MIN(position), MAX(position), ?, ? FROM picked HAVING COUNT(*) > 0)
                    SELECT * FROM picked ORDER BY position
                    """, pickValues + claimRow)
            }
        }
        return try rows.map { row throws(BroadcastError) in try Self.pendingRecipient(row, job: job) }
    }

    /// Extends `claimant`'s claims on `job` that have not lapsed to `until`; returns the
    /// positions they cover (a claim that lapsed may have been taken by another run: its
    /// recipients are not among them, and are not to be sent by `claimant`).
    public func renewClaims(job: String, by claimant: String, until: Date, now: Date) throws(BroadcastError) -> Set<Int> {
        let rows = try access("renew claims on \(job)") { connection in
            try connection.rows("UPDATE broadcast_claims SET until = ? WHERE job = ? AND claimant = ? AND until >= ? RETURNING low, high",
                                [.real(until.timeIntervalSince1970), .text(job), .text(claimant), .real(now.timeIntervalSince1970)])
        }
        var held: Set<Int> = []
        for row in rows { if let low = row[0].int, let high = row[1].int, low <= high { held.formUnion(low...high) } }
        return held
    }

    /// Gives `claimant`'s claims on `job` back (a run that stopped, its outcomes written):
    /// another run may take what is still pending at once.
    public func releaseClaims(job: String, by claimant: String) throws(BroadcastError) {
        try access("release claims on \(job)") { connection in
            try connection.run("DELETE FROM broadcast_claims WHERE job = ? AND claimant = ?", [.text(job), .text(claimant)])
        }
    }

    /// Gives back every claim: for a store only this process uses (SQLite, held under its
    /// lock) when it starts, so its own runs that died with it leave nothing to wait for.
    public func releaseAllClaims() throws(BroadcastError) {
        try access("release broadcast claims") { connection in
            try connection.run("DELETE FROM broadcast_claims")
        }
    }

    /// When the first claim another run holds on `job`'s pending recipients lapses; nil when
    /// no other run holds any (so nothing is left for `claimant` to wait for).
    public func nextLapse(job: String, except claimant: String) throws(BroadcastError) -> Date? {
        try access("read claims on \(job)") { connection in
            try connection.scalar("""
                SELECT MIN(c.until) FROM broadcast_claims c WHERE c.job = ? AND c.claimant <> ?
                  AND EXISTS (SELECT 1 FROM broadcast_recipients r WHERE r.job = c.job AND r.state = 0 AND r.position BETWEEN c.low AND c.high)
                """, [.text(job), .text(claimant)])?.double.map(Date.init(timeIntervalSince1970:))
        }
    }

    /// Who sent `job`'s recipients so far, by process (`host:pid`): those done (sent, failed
    /// or opted out) by its runs, and the pending ones its live claims cover. Recipients done
    /// before claims existed are not counted.
    public func senders(job: String, now: Date) throws(BroadcastError) -> [BroadcastSender] {
        let (done, holding) = try access("read the senders of \(job)") { connection in
            (try connection.rows("SELECT sent_by, COUNT(*) FROM broadcast_recipients WHERE job = ? AND state <> 0 AND sent_by IS NOT NULL GROUP BY sent_by",
                                 [.text(job)]),
             try connection.rows("""
                SELECT c.claimant, COUNT(*) FROM broadcast_claims c JOIN broadcast_recipients r
                  ON r.job = c.job AND r.state = 0 AND r.position BETWEEN c.low AND c.high
                WHERE c.job = ? AND c.until >= ? GROUP BY c.claimant
                """, [.text(job), .real(now.timeIntervalSince1970)]))
        }
        var byProcess: [String: BroadcastSender] = [:]
        for (rows, isDone) in [(done, true), (holding, false)] {
            for row in rows {
                guard let claimant = row[0].string, let count = row[1].int else { continue }
                let process = String(claimant.prefix { $0 != " " })
                var sender = byProcess[process] ?? BroadcastSender(process: process, done: 0, holding: 0)
                if isDone { sender.done += count } else { sender.holding += count }
                byProcess[process] = sender
            }
        }
        return byProcess.values.sorted { $0.process < $1.process }
    }
}

/// One process's part in a broadcast job (`BroadcastStore.senders(job:now:)`).
public struct BroadcastSender: Sendable, Equatable {
    /// `host:pid`.
    public var process: String
    /// Recipients it sent (or failed, or skipped as opted out).
    public var done: Int
    /// Recipients it holds claims on, still pending.
    public var holding: Int

    public init(process: String, done: Int, holding: Int) {
        self.process = process
        self.done = done
        self.holding = holding
    }
}
