import Foundation
import SQLiteStore

/// Claims: how several runs of one job — in several processes on a shared PostgreSQL — send
/// it together, each recipient once. A run claims the next pending recipients nobody holds
/// (a chunk), sends them, and claims again. A claim lapses at its `until`: the run renews it
/// while it sends, and the chunk of a run that died is taken by another once it lapsed. On
/// PostgreSQL the chunk is picked `FOR UPDATE SKIP LOCKED`: runs claiming at the same moment
/// take different rows instead of waiting for each other.
///
/// Times are the runs' clocks (seconds since 1970): processes sharing a database are taken to
/// agree on the time within a few seconds, far less than a claim lasts.
extension BroadcastStore {
    /// Claims up to `limit` pending recipients of `job` that no run holds (never claimed,
    /// released, or lapsed before `now`) for `claimant` until `until`; returns them in order.
    public func claim(job: String, by claimant: String, limit: Int, now: Date, until: Date) throws(BroadcastError) -> [BroadcastRecipient] {
        let rows = try access("claim recipients of \(job)") { connection in
            let lock = connection.isPostgres ? " FOR UPDATE SKIP LOCKED" : ""
            return try connection.rows("""
                UPDATE broadcast_recipients SET claimed_by = ?, claimed_until = ?
                WHERE job = ? AND position IN (
                    SELECT position FROM broadcast_recipients
                    WHERE job = ? AND state = 0 AND (claimed_until IS NULL OR claimed_until < ?)
                    ORDER BY position LIMIT ?\(lock))
                RETURNING position, target, attempts, payload
                """, [.text(claimant), .real(until.timeIntervalSince1970), .text(job), .text(job),
                      .real(now.timeIntervalSince1970), .integer(Int64(limit))])
        }
        return try rows.map { row throws(BroadcastError) in try Self.pendingRecipient(row, job: job) }.sorted { $0.position < $1.position }
    }

    /// Extends `claimant`'s claims on `job`'s pending recipients to `until`; returns the
    /// positions it still holds (one whose claim lapsed and was taken by another is not
    /// among them, and is not to be sent by `claimant`).
    public func renewClaims(job: String, by claimant: String, until: Date) throws(BroadcastError) -> Set<Int> {
        let rows = try access("renew claims on \(job)") { connection in
            try connection.rows("UPDATE broadcast_recipients SET claimed_until = ? WHERE job = ? AND claimed_by = ? AND state = 0 RETURNING position",
                                [.real(until.timeIntervalSince1970), .text(job), .text(claimant)])
        }
        return Set(rows.compactMap { $0.first?.int })
    }

    /// Gives `claimant`'s claims on `job`'s recipients still pending back (a run that stopped,
    /// its outcomes written): another run may take them at once.
    public func releaseClaims(job: String, by claimant: String) throws(BroadcastError) {
        try access("release claims on \(job)") { connection in
            try connection.run("UPDATE broadcast_recipients SET claimed_by = NULL, claimed_until = NULL WHERE job = ? AND claimed_by = ? AND state = 0",
                               [.text(job), .text(claimant)])
        }
    }

    /// Gives back every claim on pending recipients: for a store only this process uses
    /// (SQLite, held under its lock) when it starts, so its own runs that died with it leave
    /// nothing to wait for.
    public func releaseAllClaims() throws(BroadcastError) {
        try access("release broadcast claims") { connection in
            try connection.run("UPDATE broadcast_recipients SET claimed_by = NULL, claimed_until = NULL WHERE state = 0 AND claimed_by IS NOT NULL")
        }
    }

    /// When the first claim another run holds on `job`'s pending recipients lapses; nil when
    /// no other run holds any (so nothing is left for `claimant` to wait for).
    public func nextLapse(job: String, except claimant: String) throws(BroadcastError) -> Date? {
        try access("read claims on \(job)") { connection in
            try connection.scalar("SELECT MIN(claimed_until) FROM broadcast_recipients WHERE job = ? AND state = 0 AND claimed_by <> ?",
                                  [.text(job), .text(claimant)])?.double.map(Date.init(timeIntervalSince1970:))
        }
    }

    /// Who sent `job`'s recipients so far, by process (`host:pid`): those done (sent, failed
    /// or opted out) under its claims, and those it holds now. Recipients nobody claimed
    /// (sent before claims existed) are not counted.
    public func senders(job: String) throws(BroadcastError) -> [BroadcastSender] {
        let rows = try access("read the senders of \(job)") { connection in
            try connection.rows("""
                SELECT claimed_by, CASE WHEN state = 0 THEN 1 ELSE 0 END, COUNT(*) FROM broadcast_recipients
                WHERE job = ? AND claimed_by IS NOT NULL GROUP BY claimed_by, CASE WHEN state = 0 THEN 1 ELSE 0 END
                """, [.text(job)])
        }
        var byProcess: [String: BroadcastSender] = [:]
        for row in rows {
            guard let claimant = row[0].string, let count = row[2].int else { continue }
            let process = String(claimant.prefix { $0 != " " })
            var sender = byProcess[process] ?? BroadcastSender(process: process, done: 0, holding: 0)
            if row[1].int == 1 { sender.holding += count } else { sender.done += count }
            byProcess[process] = sender
        }
        return byProcess.values.sorted { $0.process < $1.process }
    }

    /// Whether the store is shared by several processes (PostgreSQL): on SQLite this process
    /// holds it alone.
    public var isShared: Bool { writesTakeARoundTrip }
}

/// One process's part in a broadcast job (`BroadcastStore.senders(job:)`).
public struct BroadcastSender: Sendable, Equatable {
    /// `host:pid`.
    public var process: String
    /// Recipients it sent (or failed, or skipped as opted out).
    public var done: Int
    /// Recipients it holds claims on, still pending.
    public var holding: Int
}
