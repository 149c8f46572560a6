import Foundation
import ParleyCore
import ParleyStore

/// Where a subscription or opt-out came from, as stored and listed.
public enum AudienceSource: String, Sendable {
    /// The user's own subscribe command or unsubscribe word.
    case command
    /// An audience's `import:` file, at the first start.
    case `import`
    /// An operator, through the host's API.
    case api
}

/// One audience of one bot as `parley audiences` lists it.
public struct AudienceSummary: Sendable, Hashable {
    public var bot: String
    public var audience: String
    /// Subscribed now.
    public var members: Int
    /// Opted out (also people who never were members: an opt-out always wins).
    public var optedOut: Int
    /// Of those, the changes since `since`: members who joined, and people who left.
    public var joined: Int
    public var left: Int
}

/// Audiences' members: every user's latest choice per bot and audience, with its time and
/// source. An opt-out is kept as a row, so it beats any later import.
extension BroadcastStore {
    /// Opts `target` in (unless they are in already). True when this changed their state.
    @discardableResult
    public func subscribe(bot: String, audience: String, target: String, source: AudienceSource, now: Date) throws(BroadcastError) -> Bool {
        try setMembership(bot: bot, audience: audience, target: target, subscribed: true, source: source, now: now)
    }

    /// Opts `target` out (recorded also for someone who was never in). True when this changed
    /// their state. A job to the audience running in this process skips them from now on.
    @discardableResult
    public func unsubscribe(bot: String, audience: String, target: String, source: AudienceSource, now: Date) throws(BroadcastError) -> Bool {
        let changed = try setMembership(bot: bot, audience: audience, target: target, subscribed: false, source: source, now: now)
        if changed { optOutGeneration.add(1, ordering: .sequentiallyConsistent) }
        return changed
    }

    private func setMembership(bot: String, audience: String, target: String, subscribed: Bool, source: AudienceSource,
                               now: Date) throws(BroadcastError) -> Bool {
        try access("record a choice in audience \(audience)") { connection in
            // The stored choice is named by its table: PostgreSQL would find `subscribed` in `excluded` too.
            try connection.run("""
                INSERT INTO audience_members (bot, audience, target, subscribed, source, changed) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (bot, audience, target) DO UPDATE SET subscribed = excluded.subscribed, source = excluded.source,
                    changed = excluded.changed WHERE audience_members.subscribed != excluded.subscribed
                """, [.text(bot), .text(audience), .text(target), StoreValue(subscribed), .text(source.rawValue), .real(now.timeIntervalSince1970)])
            return connection.changes > 0
        }
    }

    /// Adds `targets` as members from `file`, once per bot and audience (nil when that was done
    /// before: a file edited later is not read again). Someone with a row already — a member,
    /// or someone who opted out — is left as they are. Returns how many were added.
    public func importMembers(bot: String, audience: String, file: String, targets: [Channel], now: Date) throws(BroadcastError) -> Int? {
        try access("import members of audience \(audience)") { connection in
            try connection.transaction {
                guard try connection.scalar("SELECT 1 FROM audience_imports WHERE bot = ? AND audience = ?", [.text(bot), .text(audience)]) == nil else {
                    return nil
                }
                let insert = try connection.prepare("""
                    INSERT INTO audience_members (bot, audience, target, subscribed, source, changed) VALUES (?, ?, ?, 1, ?, ?)
                    ON CONFLICT DO NOTHING
                    """)
                var added = 0
                for target in targets {
                    try insert.run([.text(bot), .text(audience), .text(target.target), .text(AudienceSource.import.rawValue), .real(now.timeIntervalSince1970)])
                    added += connection.changes
                }
                try connection.run("INSERT INTO audience_imports (bot, audience, file, imported, added) VALUES (?, ?, ?, ?, ?)",
                                   [.text(bot), .text(audience), .text(file), .real(now.timeIntervalSince1970), .integer(Int64(added))])
                return added
            }
        }
    }

    /// Where the opt-outs recorded through this store stand: read before `members`, it lets a
    /// job created from those members skip looking up opt-outs until one comes after it
    /// (`BroadcastService.create(…optOutMark:)`). Opt-outs come through this store only: the
    /// host that holds the store's lock records them.
    public func optOutMark() -> UInt64 {
        optOutGeneration.load(ordering: .sequentiallyConsistent)
    }

    /// The members of `audience` now, in target order (a job to it snapshots these).
    public func members(bot: String, audience: String) throws(BroadcastError) -> [Channel] {
        let rows = try access("read members of audience \(audience)") { connection in
            try connection.rows("SELECT target FROM audience_members WHERE bot = ? AND audience = ? AND subscribed = 1 ORDER BY target",
                                [.text(bot), .text(audience)])
        }
        return rows.compactMap { $0[0].string.flatMap(Channel.init(target:)) }
    }

    /// Whether `target` is subscribed (true), opted out (false) or unknown (nil).
    public func membership(bot: String, audience: String, target: String) throws(BroadcastError) -> Bool? {
        let value = try access("read a member of audience \(audience)") { connection in
            try connection.scalar("SELECT subscribed FROM audience_members WHERE bot = ? AND audience = ? AND target = ?",
                                  [.text(bot), .text(audience), .text(target)])
        }
        return value?.int.map { $0 != 0 }
    }

    /// Every audience with members or opt-outs (of `bot`, or of all), with the changes since `since`.
    public func audienceSummaries(bot: String? = nil, since: Date) throws(BroadcastError) -> [AudienceSummary] {
        // Counted with CASE (PostgreSQL has no integer truth values), filtered by bot only
        // when one is named (its `? IS NULL` could not tell the parameter's type).
        let changedSince = StoreValue.real(since.timeIntervalSince1970)
        let rows = try access("read audiences") { connection in
            try connection.rows("""
                SELECT bot, audience, SUM(subscribed), SUM(1 - subscribed),
                       SUM(CASE WHEN subscribed = 1 AND changed >= ? THEN 1 ELSE 0 END),
                       SUM(CASE WHEN subscribed = 0 AND changed >= ? THEN 1 ELSE 0 END)
                FROM audience_members \(bot == nil ? "" : "WHERE bot = ?") GROUP BY bot, audience ORDER BY bot, audience
                """, [changedSince, changedSince] + (bot.map { [.text($0)] } ?? []))
        }
        return rows.map { row in
            AudienceSummary(bot: row[0].string ?? "", audience: row[1].string ?? "", members: row[2].int ?? 0,
                            optedOut: row[3].int ?? 0, joined: row[4].int ?? 0, left: row[5].int ?? 0)
        }
    }

    /// The recipients of audience job `job` at positions `range` who have opted out of `audience`.
    func optedOut(job: String, bot: String, audience: String, positions range: ClosedRange<Int>) throws(BroadcastError) -> Set<Int> {
        let rows = try access("read opt-outs of broadcast \(job)") { connection in
            try connection.rows("""
                SELECT r.position FROM broadcast_recipients r JOIN audience_members m
                    ON m.bot = ? AND m.audience = ? AND m.target = r.target AND m.subscribed = 0
                WHERE r.job = ? AND r.position BETWEEN ? AND ?
                """, [.text(bot), .text(audience), .text(job), .integer(Int64(range.lowerBound)), .integer(Int64(range.upperBound))])
        }
        return Set(rows.compactMap { $0[0].int })
    }
}
