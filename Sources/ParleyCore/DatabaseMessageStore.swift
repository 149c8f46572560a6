import Foundation
import ParleyStore

/// Message history and the conversation list in SQLite (WAL) or a PostgreSQL schema (a
/// `postgres://` location, see `StoreLocation`), with versioned migrations.
public final class DatabaseMessageStore: MessageStore {
    static let migrations = Migrations(name: "messages", steps: [
        """
        CREATE TABLE messages (
            id TEXT PRIMARY KEY, channel TEXT NOT NULL, seq INTEGER NOT NULL, cmid TEXT NOT NULL,
            sender TEXT NOT NULL, ts REAL NOT NULL, payload TEXT NOT NULL, flags INTEGER NOT NULL,
            reply TEXT, reactions TEXT, visible TEXT, ext TEXT
        );
        CREATE INDEX messages_by_channel ON messages (channel, seq);
        CREATE TABLE conversations (
            channel TEXT PRIMARY KEY, last_activity REAL NOT NULL, digest TEXT NOT NULL, last_id TEXT,
            last_seq INTEGER NOT NULL, unread INTEGER NOT NULL, pinned INTEGER NOT NULL
        ) WITHOUT ROWID;
        """,
    ], postgresSteps: [
        """
        CREATE TABLE messages (
            id TEXT PRIMARY KEY, channel TEXT NOT NULL, seq BIGINT NOT NULL, cmid TEXT NOT NULL,
            sender TEXT NOT NULL, ts DOUBLE PRECISION NOT NULL, payload TEXT NOT NULL, flags BIGINT NOT NULL,
            reply TEXT, reactions TEXT, visible TEXT, ext TEXT
        );
        CREATE INDEX messages_by_channel ON messages (channel, seq);
        CREATE TABLE conversations (
            channel TEXT PRIMARY KEY, last_activity DOUBLE PRECISION NOT NULL, digest TEXT NOT NULL, last_id TEXT,
            last_seq BIGINT NOT NULL, unread BIGINT NOT NULL, pinned BIGINT NOT NULL
        );
        """,
    ])

    private let connection: LockedConnection

    /// Opens (creating and migrating) the database at `path` (a `StoreLocation` string).
    public init(path: String) throws {
        connection = try LockedConnection(path: path, migrations: Self.migrations, what: "message")
    }

    public func save(_ messages: [Envelope]) throws {
        guard !messages.isEmpty else { return }
        try withConnection("save messages") { connection in
            try connection.transaction { try Self.insert(messages, into: connection) }
        }
    }

    /// Messages and conversations in one transaction (one COMMIT per client flush).
    public func save(_ messages: [Envelope], conversations: [Conversation]) throws {
        guard !messages.isEmpty || !conversations.isEmpty else { return }
        try withConnection("save messages and conversations") { connection in
            try connection.transaction {
                try Self.insert(messages, into: connection)
                try Self.insert(conversations, into: connection)
            }
        }
    }

    private static func insert(_ messages: [Envelope], into connection: Connection) throws {
        guard !messages.isEmpty else { return }
        let statement = try connection.prepare("""
            INSERT INTO messages (id, channel, seq, cmid, sender, ts, payload, flags, reply, reactions, visible, ext)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(id) DO UPDATE SET reactions = excluded.reactions
            """)
        for message in messages {
            try statement.run([
                .text(message.id), .text(message.channel.target), .integer(message.seq),
                .text(message.clientMessageID.text), .text(message.sender),
                .real(message.timestamp.timeIntervalSince1970), .text(message.payload.compactJSON()),
                .integer(Int64(message.flags.rawValue)), Self.text(message.replyTo?.json),
                message.reactions.isEmpty ? .null : .text(message.reactions.json.compactJSON()),
                Self.text(message.visibleTo.map { JSONValue.array($0.map { .string($0) }) }),
                message.extensions.isEmpty ? .null : .text(JSONValue.object(message.extensions).compactJSON()),
            ])
        }
    }

    public func history(of channel: Channel, in range: ClosedRange<Int64>, limit: Int) throws -> [Envelope] {
        try withConnection("read history") { connection in
            var result: [Envelope] = []
            try connection.prepare("""
                SELECT id, channel, seq, cmid, sender, ts, payload, flags, reply, reactions, visible, ext FROM messages
                WHERE channel = ? AND seq BETWEEN ? AND ? ORDER BY seq DESC LIMIT ?
                """).query([.text(channel.target), .integer(range.lowerBound), .integer(range.upperBound), .integer(Int64(max(0, limit)))]) { row in
                if let envelope = Self.envelope(row.values) { result.append(envelope) }
            }
            return result.reversed()
        }
    }

    public func message(id: String) throws -> Envelope? {
        try withConnection("read message") { connection in
            try connection.rows("""
                SELECT id, channel, seq, cmid, sender, ts, payload, flags, reply, reactions, visible, ext FROM messages WHERE id = ?
                """, [.text(id)]).first.flatMap(Self.envelope)
        }
    }

    public func contains(id: String, channel: Channel, seq: Int64) throws -> Bool {
        try withConnection("look up a message") { connection in
            try connection.scalar("SELECT 1 FROM messages WHERE id = ?", [.text(id)]) != nil
        }
    }

    public func saveConversations(_ conversations: [Conversation]) throws {
        guard !conversations.isEmpty else { return }
        try withConnection("save conversations") { connection in
            try connection.transaction { try Self.insert(conversations, into: connection) }
        }
    }

    private static func insert(_ conversations: [Conversation], into connection: Connection) throws {
        guard !conversations.isEmpty else { return }
        let statement = try connection.prepare("""
            INSERT INTO conversations (channel, last_activity, digest, last_id, last_seq, unread, pinned)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(channel) DO UPDATE SET last_activity = excluded.last_activity, digest = excluded.digest,
                last_id = excluded.last_id, last_seq = excluded.last_seq, unread = excluded.unread, pinned = excluded.pinned
            """)
        for item in conversations {
            try statement.run([.text(item.channel.target), .real(item.lastActivity.timeIntervalSince1970), .text(item.digest),
                               StoreValue(item.lastMessageID), .integer(item.lastSeq), .integer(Int64(item.unreadCount)),
                               StoreValue(item.isPinned)])
        }
    }

    public func conversations() throws -> [Conversation] {
        try withConnection("read conversations") { connection in
            try connection.rows("SELECT channel, last_activity, digest, last_id, last_seq, unread, pinned FROM conversations").compactMap { row in
                guard let channel = row[0].string.flatMap(Channel.init(target:)), let activity = row[1].double else { return nil }
                return Conversation(channel: channel, lastActivity: Date(timeIntervalSince1970: activity), digest: row[2].string ?? "",
                                    lastMessageID: row[3].string, lastSeq: row[4].int64 ?? 0, unreadCount: row[5].int ?? 0,
                                    isPinned: (row[6].int ?? 0) != 0)
            }
        }
    }

    // MARK: - Helpers

    private func withConnection<T>(_ what: String, _ body: (Connection) throws -> T) throws -> T {
        try connection.with(what, body)
    }

    private static func text(_ json: JSONValue?) -> StoreValue {
        json.map { .text($0.compactJSON()) } ?? .null
    }

    private static func parse(_ value: StoreValue) -> JSONValue? {
        guard let text = value.string else { return nil }
        return try? JSONValue.parse(Data(text.utf8))
    }

    /// A row back as an envelope; nil for a row that cannot be read (never written by us).
    private static func envelope(_ row: [StoreValue]) -> Envelope? {
        guard row.count == 12, let id = row[0].string, let channel = row[1].string.flatMap(Channel.init(target:)),
              let seq = row[2].int64, let cmid = row[3].string.flatMap(UUID.init(uuidString:)), let sender = row[4].string,
              let ts = row[5].double, let payload = parse(row[6]) else { return nil }
        return Envelope(id: id, channel: channel, seq: seq, clientMessageID: cmid, sender: sender,
                        timestamp: Date(timeIntervalSince1970: ts), payload: payload,
                        flags: MessageFlags(rawValue: row[7].int ?? 0), replyTo: parse(row[8]).flatMap(ReplyReference.init(json:)),
                        reactions: [ReactionSummary](json: parse(row[9])),
                        visibleTo: parse(row[10])?.arrayValue?.compactMap(\.stringValue), extensions: parse(row[11])?.objectValue ?? [:])
    }
}
