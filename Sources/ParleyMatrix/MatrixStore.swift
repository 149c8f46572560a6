import Foundation
import ParleyCore
import ParleyStore

/// What `MatrixTransport` keeps across restarts, in SQLite (one database file per account) or
/// a PostgreSQL schema (a `postgres://` location, see `StoreLocation`):
/// the session (device and `since`; never the access token), per-channel sequence counters, the messages it saw
/// (for seq lookups, replies and `history`), handled event ids (so nothing is delivered twice)
/// and reactions (so an unreact can redact the right event). `prune(before:)` forgets what is
/// older than the retention window.
actor MatrixStore {
    let db: Connection
    /// When an event is handled (`matrix_seen.ts`), for `prune(before:)`.
    private let now: @Sendable () -> Date

    static let migrations = Migrations(name: "matrix", steps: [
        """
        CREATE TABLE matrix_session (user_id TEXT PRIMARY KEY, access_token TEXT, device_id TEXT, since TEXT);
        CREATE TABLE matrix_seq (channel TEXT PRIMARY KEY, seq INTEGER NOT NULL);
        CREATE TABLE matrix_events (event_id TEXT PRIMARY KEY, room_id TEXT NOT NULL, channel TEXT NOT NULL,
            seq INTEGER NOT NULL, client_message_id TEXT NOT NULL, sender TEXT NOT NULL, ts REAL NOT NULL,
            payload TEXT NOT NULL, reply_to TEXT);
        CREATE INDEX matrix_events_channel ON matrix_events(channel, seq);
        CREATE INDEX matrix_events_cmid ON matrix_events(sender, client_message_id);
        CREATE TABLE matrix_seen (event_id TEXT PRIMARY KEY, room_id TEXT NOT NULL);
        CREATE TABLE matrix_reactions (reaction_event_id TEXT PRIMARY KEY, room_id TEXT NOT NULL,
            target_event_id TEXT NOT NULL, key TEXT NOT NULL, sender TEXT NOT NULL);
        CREATE INDEX matrix_reactions_target ON matrix_reactions(target_event_id, key, sender);
        """,
        "CREATE INDEX matrix_seen_room ON matrix_seen(room_id)",
        // When each event was handled, for retention; rows from before this step count as
        // handled at the upgrade, so they are kept a whole retention window from then.
        """
        ALTER TABLE matrix_seen ADD COLUMN ts REAL NOT NULL DEFAULT 0;
        UPDATE matrix_seen SET ts = (julianday('now') - 2440587.5) * 86400.0;
        CREATE INDEX matrix_seen_ts ON matrix_seen(ts);
        CREATE INDEX matrix_events_ts ON matrix_events(ts);
        """,
        // Encrypted events waiting for their room key: written with the sync position that
        // delivered them, so a crash while one waits does not lose it.
        "CREATE TABLE matrix_held (event_id TEXT PRIMARY KEY, room_id TEXT NOT NULL, event TEXT NOT NULL, held_at REAL NOT NULL)",
    ], postgresSteps: [
        // SQLite's tables as its steps left them, but: no `access_token` column (no PostgreSQL
        // schema ever held one), and `matrix_seen` numbers its rows in an explicit `rowid`
        // (SQLite's implicit one), which `pruneSeen` and `prune` order by.
        """
        CREATE TABLE matrix_session (user_id TEXT PRIMARY KEY, device_id TEXT, since TEXT);
        CREATE TABLE matrix_seq (channel TEXT PRIMARY KEY, seq BIGINT NOT NULL);
        CREATE TABLE matrix_events (event_id TEXT PRIMARY KEY, room_id TEXT NOT NULL, channel TEXT NOT NULL,
            seq BIGINT NOT NULL, client_message_id TEXT NOT NULL, sender TEXT NOT NULL, ts DOUBLE PRECISION NOT NULL,
            payload TEXT NOT NULL, reply_to TEXT);
        CREATE INDEX matrix_events_channel ON matrix_events(channel, seq);
        CREATE INDEX matrix_events_cmid ON matrix_events(sender, client_message_id);
        CREATE INDEX matrix_events_ts ON matrix_events(ts);
        CREATE TABLE matrix_seen (rowid BIGINT GENERATED ALWAYS AS IDENTITY, event_id TEXT PRIMARY KEY,
            room_id TEXT NOT NULL, ts DOUBLE PRECISION NOT NULL);
        CREATE INDEX matrix_seen_room ON matrix_seen(room_id, rowid);
        CREATE INDEX matrix_seen_ts ON matrix_seen(ts);
        CREATE TABLE matrix_reactions (reaction_event_id TEXT PRIMARY KEY, room_id TEXT NOT NULL,
            target_event_id TEXT NOT NULL, key TEXT NOT NULL, sender TEXT NOT NULL);
        CREATE INDEX matrix_reactions_target ON matrix_reactions(target_event_id, key, sender);
        CREATE TABLE matrix_held (event_id TEXT PRIMARY KEY, room_id TEXT NOT NULL, event TEXT NOT NULL,
            held_at DOUBLE PRECISION NOT NULL);
        """,
    ])

    /// Opens (creating and migrating) the database at `path`; `log` hears of file modes
    /// tightened and of access tokens an older Parley stored, which are erased; `now` stamps
    /// handled events.
    /// - Throws: `ParleyError(.storage)` naming the file.
    init(path: String, log: @escaping @Sendable (String) -> Void = { _ in }, now: @escaping @Sendable () -> Date = Date.init) throws {
        self.now = now
        do {
            db = try Self.migrations.open(path, warn: log)
            try Self.eraseStoredTokens(db, log: log)
        } catch {
            throw ParleyError(.storage, "cannot open the Matrix state database: \(error)", context: ["path": StoreLocation(path).shown])
        }
    }

    /// Runs `body`, turning SQLite errors into `ParleyError(.storage)`.
    func storage<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as ParleyError { throw error } catch {
            throw ParleyError(.storage, "Matrix state database: \(error)", context: ["path": StoreLocation(db.path).shown])
        }
    }

    // MARK: - Session

    /// The stored session of `userID`, if any.
    func session(userID: String) throws -> (deviceID: String?, since: String?) {
        try storage {
            guard let row = try db.rows("SELECT device_id, since FROM matrix_session WHERE user_id = ?",
                                        [.text(userID)]).first else { return (nil, nil) }
            return (row[0].string, row[1].string)
        }
    }

    /// Stores the device of a login, to log in as the same device at the next start (its
    /// transaction ids stay valid); the token is not kept (the column stays empty).
    func saveDevice(userID: String, deviceID: String) throws {
        try storage {
            try db.run("""
                INSERT INTO matrix_session (user_id, device_id) VALUES (?, ?)
                ON CONFLICT(user_id) DO UPDATE SET device_id = excluded.device_id
                """, [.text(userID), .text(deviceID)])
        }
    }

    /// Sets the sync position (inside `apply`: with what the sync handled).
    func upsertSince(userID: String, since: String) throws {
        try db.run("""
            INSERT INTO matrix_session (user_id, since) VALUES (?, ?)
            ON CONFLICT(user_id) DO UPDATE SET since = excluded.since
            """, [.text(userID), .text(since)])
    }

    // MARK: - Events

    /// Whether `eventID` was already handled (delivered, skipped on purpose or sent by us).
    func isSeen(_ eventID: String) throws -> Bool {
        try storage { try db.scalar("SELECT 1 FROM matrix_seen WHERE event_id = ?", [.text(eventID)]) != nil }
    }

    /// Marks events handled without recording a message (reactions, membership, old history).
    func markSeen(_ eventIDs: [String], room: String) throws {
        try storage {
            try db.transaction {
                for id in eventIDs { try insertSeen(id, room: room) }
            }
        }
    }

    func insertSeen(_ eventID: String, room: String) throws {
        try db.run("INSERT OR IGNORE INTO matrix_seen (event_id, room_id, ts) VALUES (?, ?, ?)",
                   [.text(eventID), .text(room), .real(now().timeIntervalSince1970)])
    }

    /// Forgets all but the newest `keep` handled event ids of `room`. Safe for backfills: they
    /// walk back from the newest events and stop at the first handled one, which is kept.
    func pruneSeen(room: String, keep: Int) throws {
        try storage {
            try db.run("""
                DELETE FROM matrix_seen WHERE room_id = ?1 AND rowid <=
                    (SELECT rowid FROM matrix_seen WHERE room_id = ?1 ORDER BY rowid DESC LIMIT 1 OFFSET ?2)
                """, [.text(room), .integer(Int64(max(0, keep)))])
        }
    }

    /// Records a message of someone else and assigns the next sequence number of its channel
    /// (arrival order). Recording the same event again returns the first sequence number.
    func recordMessage(_ envelope: Envelope, room: String, replyTo: String?) throws -> Int64 {
        try storage { try db.transaction { try insertMessage(envelope, room: room, replyTo: replyTo, markSeen: true).seq } }
    }

    /// The sequence number and time a message is recorded with (the first ones for an event
    /// recorded before); inside the caller's transaction. `markSeen: false` for this account's
    /// own sends: the sync filter keeps their echoes away, so nothing asks.
    func insertMessage(_ envelope: Envelope, room: String, replyTo: String?, markSeen: Bool) throws -> (seq: Int64, timestamp: Date) {
        if let row = try db.rows("SELECT seq, ts FROM matrix_events WHERE event_id = ?", [.text(envelope.id)]).first,
           let seq = row[0].int64, let ts = row[1].double {
            return (seq, Date(timeIntervalSince1970: ts))
        }
        let channel = envelope.channel.target
        let seq = (try db.scalar("SELECT seq FROM matrix_seq WHERE channel = ?", [.text(channel)])?.int64 ?? 0) + 1
        try db.run("INSERT INTO matrix_seq (channel, seq) VALUES (?, ?) ON CONFLICT(channel) DO UPDATE SET seq = excluded.seq",
                   [.text(channel), .integer(seq)])
        let ts = envelope.timestamp.timeIntervalSince1970
        try db.run("""
            INSERT INTO matrix_events (event_id, room_id, channel, seq, client_message_id, sender, ts, payload, reply_to)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(envelope.id), .text(room), .text(channel), .integer(seq), .text(envelope.clientMessageID.uuidString),
                  .text(envelope.sender), .real(ts), .text(envelope.payload.jsonString()), StoreValue(replyTo)])
        if markSeen { try insertSeen(envelope.id, room: room) }
        // As `receipt(clientMessageID:sender:)` reads it back: a resend's receipt is the same.
        return (seq, Date(timeIntervalSince1970: ts))
    }

    /// Records a message this account sent and returns its receipt, as a resend will find it.
    func recordSent(_ envelope: Envelope, room: String, replyTo: String?) throws -> SendReceipt {
        try storage {
            let stored = try db.transaction { try insertMessage(envelope, room: room, replyTo: replyTo, markSeen: false) }
            return SendReceipt(messageID: envelope.id, seq: stored.seq, timestamp: stored.timestamp)
        }
    }

    /// The receipt of a message this account already sent with `clientMessageID`.
    func receipt(clientMessageID: UUID, sender: String) throws -> SendReceipt? {
        try storage {
            guard let row = try db.rows("SELECT event_id, seq, ts FROM matrix_events WHERE sender = ? AND client_message_id = ?",
                                        [.text(sender), .text(clientMessageID.uuidString)]).first,
                  let id = row[0].string, let seq = row[1].int64, let ts = row[2].double
            else { return nil }
            return SendReceipt(messageID: id, seq: seq, timestamp: Date(timeIntervalSince1970: ts))
        }
    }

    /// A recorded message (its reply reference resolved one level deep).
    func message(_ eventID: String) throws -> Envelope? {
        try storage { try rows(where: "event_id = ?", [.text(eventID)], limit: 1).first }
    }

    /// Recorded messages of `channel` with `seq > after`, oldest first.
    func history(of channel: Channel, after seq: Int64, limit: Int) throws -> [Envelope] {
        try storage { try rows(where: "channel = ? AND seq > ?", [.text(channel.target), .integer(seq)], limit: limit) }
    }

    private func rows(where condition: String, _ values: [StoreValue], limit: Int) throws -> [Envelope] {
        let sql = """
            SELECT event_id, channel, seq, client_message_id, sender, ts, payload, reply_to FROM matrix_events
            WHERE \(condition) ORDER BY seq LIMIT ?
            """
        return try db.rows(sql, values + [.integer(Int64(max(0, limit)))]).compactMap { row in
            guard let id = row[0].string, let channel = row[1].string.flatMap(Channel.init(target:)), let seq = row[2].int64,
                  let cmid = row[3].string.flatMap(UUID.init(uuidString:)), let sender = row[4].string, let ts = row[5].double,
                  let payload = row[6].data.flatMap({ try? JSONValue.parse($0) })
            else { return nil }
            var reply: ReplyReference?
            if let replyID = row[7].string {
                let original = try db.rows("SELECT seq, sender, payload FROM matrix_events WHERE event_id = ?", [.text(replyID)]).first
                reply = ReplyReference(messageID: replyID, seq: original?[0].int64 ?? 0, sender: original?[1].string ?? "",
                                       quoted: original?[2].data.flatMap { try? JSONValue.parse($0) } ?? .null)
            }
            return Envelope(id: id, channel: channel, seq: seq, clientMessageID: cmid, sender: sender,
                            timestamp: Date(timeIntervalSince1970: ts), payload: payload, replyTo: reply)
        }
    }

    // MARK: - Reactions

    /// Records a reaction event (ours or someone else's).
    func recordReaction(eventID: String, room: String, target: String, key: String, sender: String) throws {
        try storage { try db.transaction { try insertReaction(eventID: eventID, room: room, target: target, key: key, sender: sender) } }
    }

    func insertReaction(eventID: String, room: String, target: String, key: String, sender: String) throws {
        try db.run("INSERT OR IGNORE INTO matrix_reactions (reaction_event_id, room_id, target_event_id, key, sender) VALUES (?, ?, ?, ?, ?)",
                   [.text(eventID), .text(room), .text(target), .text(key), .text(sender)])
        try insertSeen(eventID, room: room)
    }

    /// The reaction event of `sender` with `key` on `target`, if recorded.
    func reaction(target: String, key: String, sender: String) throws -> String? {
        try storage {
            try db.scalar("SELECT reaction_event_id FROM matrix_reactions WHERE target_event_id = ? AND key = ? AND sender = ?",
                          [.text(target), .text(key), .text(sender)])?.string
        }
    }

    /// Forgets a reaction event (this account's, once redacted).
    func forgetReaction(eventID: String) throws {
        try storage { try deleteReaction(eventID: eventID) }
    }

    func deleteReaction(eventID: String) throws {
        try db.run("DELETE FROM matrix_reactions WHERE reaction_event_id = ?", [.text(eventID)])
    }

    /// What a recorded reaction event is, if it is one.
    func reaction(eventID: String) throws -> ReactionRecord? {
        try storage {
            guard let row = try db.rows("SELECT room_id, target_event_id, key, sender FROM matrix_reactions WHERE reaction_event_id = ?",
                                        [.text(eventID)]).first,
                  let room = row[0].string, let target = row[1].string, let key = row[2].string, let sender = row[3].string
            else { return nil }
            return ReactionRecord(eventID: eventID, room: room, target: target, key: key, sender: sender)
        }
    }

    // MARK: - Retention

    /// Deletes what is older than `cutoff` and returns the number of rows deleted: messages
    /// sent before it, handled event ids handled before it, and reactions whose target message
    /// is gone and which were themselves handled before it.
    ///
    /// The newest handled event of each room stays whatever its age: a backfill walks back
    /// from the newest events to the first handled one, and without it would deliver the
    /// room's old history again. Sequence counters stay too, so numbers are never reused.
    func prune(before cutoff: Date) throws -> Int {
        let cutoff = StoreValue.real(cutoff.timeIntervalSince1970)
        return try storage {
            try db.transaction {
                try db.run("DELETE FROM matrix_events WHERE ts < ?", [cutoff])
                var deleted = db.changes
                try db.run("""
                    DELETE FROM matrix_seen WHERE ts < ?
                        AND rowid NOT IN (SELECT max(rowid) FROM matrix_seen GROUP BY room_id)
                    """, [cutoff])
                deleted += db.changes
                try db.run("""
                    DELETE FROM matrix_reactions
                    WHERE target_event_id NOT IN (SELECT event_id FROM matrix_events)
                        AND reaction_event_id NOT IN (SELECT event_id FROM matrix_seen)
                    """)
                return deleted + db.changes
            }
        }
    }
}
