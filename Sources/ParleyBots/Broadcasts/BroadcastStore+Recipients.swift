import Foundation
import ParleyCore
import ParleyStore

extension BroadcastStore {
    /// A pending recipient from a row of position, target, attempts and payload.
    static func pendingRecipient(_ row: [StoreValue], job: String) throws(BroadcastError) -> BroadcastRecipient {
        guard let position = row[0].int, let channel = row[1].string.flatMap(Channel.init(target:)) else {
            throw BroadcastError(.storage, "a recipient of broadcast '\(job)' is damaged in storage")
        }
        return BroadcastRecipient(position: position, channel: channel, outcome: nil, attempts: row[2].int ?? 0,
                                  payload: try Self.payload(row[3], job: job))
    }

    /// The recipients `job` gave up on, in order, with their error and own payload.
    public func failures(job: String) throws(BroadcastError) -> [BroadcastFailure] {
        let rows = try access("read failed recipients of \(job)") { connection in
            try connection.rows(
                "SELECT position, target, reason, attempts, payload FROM broadcast_recipients WHERE job = ? AND state = ? ORDER BY position",
                [.text(job), .integer(RecipientState.failed.rawValue)])
        }
        return try rows.map { row throws(BroadcastError) in
            guard let position = row[0].int, let channel = row[1].string.flatMap(Channel.init(target:)) else {
                throw BroadcastError(.storage, "a recipient of broadcast '\(job)' is damaged in storage")
            }
            return BroadcastFailure(position: position, channel: channel, reason: row[2].string ?? "", attempts: row[3].int ?? 0,
                                    payload: try Self.payload(row[4], job: job))
        }
    }

    /// A recipient's stored own payload (nil: none).
    private static func payload(_ value: StoreValue, job: String) throws(BroadcastError) -> JSONValue? {
        guard let text = value.string else { return nil }
        guard let parsed = try? JSONValue.parse(Data(text.utf8)) else {
            throw BroadcastError(.storage, "the payload of a recipient of broadcast '\(job)' is damaged in storage")
        }
        return parsed
    }

    /// Writes outcomes in one transaction and moves the job's counters with them; `sender`
    /// (the run's claimant) is kept with each, for `senders(job:now:)`. Many rows a statement
    /// (an UPDATE from a list of values, on PostgreSQL from arrays): on PostgreSQL each
    /// statement is a round trip.
    public func record(job: String, _ results: [BroadcastRecipient], by sender: String? = nil) throws(BroadcastError) {
        var rows: [StoreValue] = []
        rows.reserveCapacity(results.count * 5)
        for result in results {
            let (state, messageID, reason): (RecipientState, String?, String?)
            switch result.outcome {
            case .sent(let id)?: (state, messageID, reason) = (.sent, id, nil)
            case .failed(let why)?: (state, messageID, reason) = (.failed, nil, why)
            case .optedOut?: (state, messageID, reason) = (.optedOut, nil, nil)
            case nil: continue
            }
            rows += [.integer(Int64(result.position)), .integer(state.rawValue), StoreValue(messageID), StoreValue(reason),
                     .integer(Int64(result.attempts))]
        }
        guard !rows.isEmpty else { return }
        try access("record outcomes of \(job)") { connection in
            try connection.transaction {
                var counts: [RecipientState: Int64] = [:]
                // Only rows that were still pending change, and are counted (a repeated record
                // changes nothing).
                let set = "UPDATE broadcast_recipients SET state = v.state, message_id = v.message_id, reason = v.reason, attempts = v.attempts, sent_by = CAST(? AS TEXT)"
                let match = "WHERE broadcast_recipients.job = ? AND broadcast_recipients.position = v.position AND broadcast_recipients.state = 0 RETURNING broadcast_recipients.state"
                var changed: [[StoreValue]] = []
                if connection.isPostgres {
                    // All of them in one statement, a column an array (see `PostgresArray`).
                    let columns = (0..<5).map { column in PostgresArray.literal(stride(from: column, to: rows.count, by: 5).map { rows[$0] }) }
                    changed = try connection.rows("""
                        \(set) FROM unnest(CAST(? AS BIGINT[]), CAST(? AS BIGINT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS BIGINT[]))
                            AS v(position, state, message_id, reason, attempts) \(match)
                        """, [StoreValue(sender)] + columns + [.text(job)])
                } else {
                    var start = 0
                    while start < rows.count {
                        let count = min(Self.rowsPerInsert, (rows.count - start) / 5)
                        changed += try connection.rows("""
                            WITH v(position, state, message_id, reason, attempts) AS (VALUES \(Array(repeating: Self.outcomeRow, count: count).joined(separator: ", ")))
                            \(set) FROM v \(match)
                            """, Array(rows[start..<start + count * 5]) + [StoreValue(sender), .text(job)])
                        start += count * 5
                    }
                }
                for row in changed {
                    if let state = row.first?.int64.flatMap(RecipientState.init(rawValue:)) { counts[state, default: 0] += 1 }
                }
                try connection.run("UPDATE broadcast_jobs SET sent = sent + ?, failed = failed + ?, opted_out = opted_out + ? WHERE id = ?",
                                   [.integer(counts[.sent] ?? 0), .integer(counts[.failed] ?? 0), .integer(counts[.optedOut] ?? 0), .text(job)])
            }
        }
    }

    /// One outcome in `record`'s list on SQLite (which reads the casts as affinities).
    private static let outcomeRow = "(CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS BIGINT))"

    /// Marks `job` finished at `now` (when nothing is pending any more), unless it was
    /// cancelled meanwhile.
    public func finish(job: String, now: Date) throws(BroadcastError) {
        _ = try transition(job: job, from: [.running, .paused], to: .finished, now: now)
    }

    /// Moves `job` to `state` if it is in one of `from`, in one statement (a pause racing the
    /// end of the job finds it finished, not the other way round). Ending states record `now`
    /// as the end. Returns false, changing nothing, when the job is in another state or absent.
    public func transition(job: String, from: Set<BroadcastJob.State>, to state: BroadcastJob.State,
                           now: Date) throws(BroadcastError) -> Bool {
        let sources = from.map(\.rawValue).sorted()
        return try access("move broadcast \(job) to \(state.rawValue)") { connection in
            try connection.run(
                "UPDATE broadcast_jobs SET state = ?, finished = ? WHERE id = ? AND state IN (\(sources.map { _ in "?" }.joined(separator: ", ")))",
                [.text(state.rawValue), state.isEnded ? .real(now.timeIntervalSince1970) : .null, .text(job)] + sources.map { .text($0) })
            return connection.changes > 0
        }
    }

    /// Every recipient of `job` with its state, in order (for reports and tests).
    public func recipients(job: String) throws(BroadcastError) -> [BroadcastRecipient] {
        let rows = try access("read recipients of \(job)") { connection in
            try connection.rows("SELECT position, target, state, message_id, reason, attempts FROM broadcast_recipients WHERE job = ? ORDER BY position",
                                [.text(job)])
        }
        return rows.compactMap { row in
            guard let position = row[0].int, let channel = row[1].string.flatMap(Channel.init(target:)) else { return nil }
            let outcome: BroadcastOutcome?
            switch RecipientState(rawValue: row[2].int64 ?? 0) {
            case .sent?: outcome = .sent(messageID: row[3].string ?? "")
            case .failed?: outcome = .failed(reason: row[4].string ?? "")
            case .optedOut?: outcome = .optedOut
            default: outcome = nil
            }
            return BroadcastRecipient(position: position, channel: channel, outcome: outcome, attempts: row[5].int ?? 0)
        }
    }
}

extension BroadcastStore {
    /// Deletes jobs that finished or were cancelled before `cutoff`, with their recipients
    /// (`storage.retention`); a running or paused job is kept however old. Returns the number of jobs deleted. Its id is then
    /// free: `parley broadcast --id` with it starts a new job.
    public func prune(before cutoff: Date) throws(BroadcastError) -> Int {
        try access("delete old broadcast jobs") { connection in
            try connection.transaction {
                let old: [StoreValue] = [.text(BroadcastJob.State.finished.rawValue), .text(BroadcastJob.State.cancelled.rawValue),
                                          .real(cutoff.timeIntervalSince1970)]
                try connection.run("""
                    DELETE FROM broadcast_recipients WHERE job IN (SELECT id FROM broadcast_jobs WHERE state IN (?, ?) AND finished < ?)
                    """, old)
                try connection.run("DELETE FROM broadcast_jobs WHERE state IN (?, ?) AND finished < ?", old)
                return connection.changes
            }
        }
    }
}
