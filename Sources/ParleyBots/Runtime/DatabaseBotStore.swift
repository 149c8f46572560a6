import Foundation
import ParleyStore
import Synchronization

/// A `BotStore` in a SQLite file (WAL) or a PostgreSQL schema (a `StoreLocation` string),
/// shared by the bots of one host.
public final class DatabaseBotStore: BotStore, @unchecked Sendable {
    // `Connection` is not Sendable; every use holds the lock (on PostgreSQL) or runs on the
    // writer's thread (on SQLite), hence @unchecked.
    private let lock = NSLock()
    let connection: Connection
    /// On PostgreSQL: more connections for the per-message work (states, inbox), so that
    /// conversations do not wait for each other's round trips. Nil on SQLite.
    private let pool: ConnectionPool?
    /// The connections of `pool`.
    static let postgresPoolSize = 4
    /// On PostgreSQL: the writes of handled messages (their conversation's state, their removal
    /// from the inbox), committed behind the bot's back, many in one round trip, so a
    /// conversation does not wait for its write before the next message is handled. A crash
    /// before one commits leaves its message in the inbox, and the restart handles it again from
    /// the state before (its sends under the same names), as after a crash just before a
    /// synchronous write. Every other call waits for them first (reads see them; other writes
    /// land after them). Nil on SQLite, whose writes take no round trip.
    private let behind: WriteBehind?
    /// On SQLite: the file's one writer. Every call runs on its thread, in its next group
    /// commit, with `connection` (which only that thread then uses); a handled message's write
    /// is queued without waiting, like `behind` on PostgreSQL. Nil on PostgreSQL.
    private let writer: StoreWriter?
    /// On SQLite: connections that read beside the writer (the WAL lets them), for a
    /// conversation's state when none of its writes is still queued. Nil on PostgreSQL.
    private let readers: ConnectionPool?
    /// On SQLite: writes queued and not yet committed, which the reads show meanwhile (see
    /// `PendingWrites`): tickets and queue turns, as written; conversation states (a handled
    /// message's, a resolution's) by their conversation alone, whose state is then read
    /// through the writer, after them. Empty on PostgreSQL, whose writes return committed.
    private let pendingTickets = PendingWrites<TicketKey, Ticket>()
    private let pendingTurns = PendingWrites<String, String>()
    private let pendingStates = PendingWrites<Conversation, Void>()
    /// The connections in `readers`: one per core, as many as can read at once.
    static let sqliteReaders = max(2, min(4, ProcessInfo.processInfo.activeProcessorCount))
    /// Where the writes `behind` gives up on are reported (see `reportWriteFailures`).
    private let failureReport = FailureReport()
    private let encoder = JSONEncoder()
    let decoder = JSONDecoder()

    static let migrations = Migrations(name: "engine", steps: [
        """
        CREATE TABLE engine_states (bot TEXT NOT NULL, channel TEXT NOT NULL, state TEXT NOT NULL,
                                    deadline REAL, PRIMARY KEY (bot, channel));
        CREATE TABLE engine_greeted (bot TEXT NOT NULL, key TEXT NOT NULL, PRIMARY KEY (bot, key));
        CREATE TABLE engine_tickets (bot TEXT NOT NULL, number INTEGER NOT NULL, ticket TEXT NOT NULL,
                                     PRIMARY KEY (bot, number));
        """,
        // The conversation and whether the ticket is still open, as columns: `open` looks
        // up a conversation's unresolved ticket without decoding every ticket.
        """
        ALTER TABLE engine_tickets ADD COLUMN channel TEXT;
        ALTER TABLE engine_tickets ADD COLUMN unresolved INTEGER NOT NULL DEFAULT 0;
        UPDATE engine_tickets SET channel = json_extract(ticket, '$.channel'),
                                  unresolved = json_extract(ticket, '$.status') != 'resolved';
        CREATE INDEX engine_tickets_unresolved ON engine_tickets (bot, channel) WHERE unresolved = 1;
        """,
        // Messages received and not yet handled, in the order received (`position`).
        """
        CREATE TABLE engine_inbox (position INTEGER PRIMARY KEY AUTOINCREMENT, bot TEXT NOT NULL,
                                   message_id TEXT NOT NULL, message TEXT NOT NULL, UNIQUE (bot, message_id));
        """,
        // Ticket numbers per queue, not per bot: two bots on one queue would otherwise each have
        // a #1, and an agent's `reply 1` would reach both customers. The table is keyed by queue
        // and number; the bot stays in the key because tickets numbered per bot by an older
        // store may share a number in a queue: they keep it. Each queue's sequence continues
        // after its highest.
        """
        CREATE TABLE engine_tickets_by_queue (queue TEXT NOT NULL, number INTEGER NOT NULL, bot TEXT NOT NULL,
                                              ticket TEXT NOT NULL, channel TEXT, unresolved INTEGER NOT NULL DEFAULT 0,
                                              PRIMARY KEY (queue, number, bot));
        INSERT INTO engine_tickets_by_queue (queue, number, bot, ticket, channel, unresolved)
            SELECT json_extract(ticket, '$.queue'), number, bot, ticket, channel, unresolved FROM engine_tickets ORDER BY rowid;
        DROP TABLE engine_tickets;
        ALTER TABLE engine_tickets_by_queue RENAME TO engine_tickets;
        CREATE INDEX engine_tickets_unresolved ON engine_tickets (bot, channel) WHERE unresolved = 1;
        CREATE INDEX engine_tickets_conversation ON engine_tickets (bot, channel, number);
        CREATE TABLE engine_ticket_numbers (queue TEXT PRIMARY KEY, last INTEGER NOT NULL);
        INSERT INTO engine_ticket_numbers (queue, last) SELECT queue, MAX(number) FROM engine_tickets GROUP BY queue;
        """,
        // Times for `storage.retention`: when a user was last heard of (greetings) and when a
        // ticket was resolved. Rows from before count from the upgrade.
        """
        ALTER TABLE engine_greeted ADD COLUMN seen REAL NOT NULL DEFAULT 0;
        UPDATE engine_greeted SET seen = CAST(strftime('%s', 'now') AS REAL);
        CREATE INDEX engine_greeted_seen ON engine_greeted (seen);
        ALTER TABLE engine_tickets ADD COLUMN resolved_at REAL;
        UPDATE engine_tickets SET resolved_at = CAST(strftime('%s', 'now') AS REAL) WHERE unresolved = 0;
        CREATE INDEX engine_tickets_resolved ON engine_tickets (resolved_at) WHERE unresolved = 0;
        """,
        // Agents marked away (`away` / `available`), and each queue's last agent in turn.
        """
        CREATE TABLE engine_agents_away (agent TEXT PRIMARY KEY);
        CREATE TABLE engine_queue_turns (queue TEXT PRIMARY KEY, agent TEXT NOT NULL);
        """,
        // Fewer pages written per message and per ticket. The inbox is numbered by its rowid
        // alone: AUTOINCREMENT kept a counter in sqlite_sequence that every received message
        // rewrote, and a new row numbers above every row present anyway, which is all the order
        // needs. A conversation's unresolved ticket is found through the conversation index
        // (it has few tickets), so the partial index of unresolved tickets goes: it cost a
        // page at each open and each resolution. Conversation states are kept in their key's
        // B-tree (WITHOUT ROWID): a rowid table beside its primary-key index wrote two pages
        // per state saved or forgotten.
        """
        CREATE TABLE engine_states_keyed (bot TEXT NOT NULL, channel TEXT NOT NULL, state TEXT NOT NULL,
                                          deadline REAL, PRIMARY KEY (bot, channel)) WITHOUT ROWID;
        INSERT INTO engine_states_keyed (bot, channel, state, deadline) SELECT bot, channel, state, deadline FROM engine_states;
        DROP TABLE engine_states;
        ALTER TABLE engine_states_keyed RENAME TO engine_states;
        CREATE TABLE engine_inbox_by_rowid (position INTEGER PRIMARY KEY, bot TEXT NOT NULL,
                                            message_id TEXT NOT NULL, message TEXT NOT NULL, UNIQUE (bot, message_id));
        INSERT INTO engine_inbox_by_rowid (position, bot, message_id, message) SELECT position, bot, message_id, message FROM engine_inbox;
        DROP TABLE engine_inbox;
        ALTER TABLE engine_inbox_by_rowid RENAME TO engine_inbox;
        DROP INDEX engine_tickets_unresolved;
        """,
        // The message a greeting answered: handled again after a crash, it is greeted again
        // (the greeting's send names make a second send a repeat the transport recognises).
        "ALTER TABLE engine_greeted ADD COLUMN message TEXT;",
    ], postgresSteps: [
        // The tables as SQLite's steps leave them, created at once. The inbox numbers its
        // messages with an identity column (SQLite's rowid alias); tickets keep an explicit
        // `rowid` (their order of opening), which the queries below order by on both.
        // Conversations are listed by channel in byte order, as SQLite compares text (COLLATE "C").
        """
        CREATE TABLE engine_states (bot TEXT NOT NULL, channel TEXT COLLATE "C" NOT NULL, state TEXT NOT NULL,
                                    deadline DOUBLE PRECISION, PRIMARY KEY (bot, channel));
        CREATE TABLE engine_greeted (bot TEXT NOT NULL, key TEXT NOT NULL, seen DOUBLE PRECISION NOT NULL DEFAULT 0,
                                     PRIMARY KEY (bot, key));
        CREATE INDEX engine_greeted_seen ON engine_greeted (seen);
        CREATE TABLE engine_inbox (position BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, bot TEXT NOT NULL,
                                   message_id TEXT NOT NULL, message TEXT NOT NULL, UNIQUE (bot, message_id));
        CREATE TABLE engine_tickets (rowid BIGINT GENERATED ALWAYS AS IDENTITY, queue TEXT NOT NULL, number BIGINT NOT NULL,
                                     bot TEXT NOT NULL, ticket TEXT NOT NULL, channel TEXT, unresolved BIGINT NOT NULL DEFAULT 0,
                                     resolved_at DOUBLE PRECISION, PRIMARY KEY (queue, number, bot));
        CREATE INDEX engine_tickets_conversation ON engine_tickets (bot, channel, number);
        CREATE INDEX engine_tickets_resolved ON engine_tickets (resolved_at) WHERE unresolved = 0;
        CREATE INDEX engine_tickets_order ON engine_tickets (rowid);
        CREATE TABLE engine_ticket_numbers (queue TEXT PRIMARY KEY, last BIGINT NOT NULL);
        CREATE TABLE engine_agents_away (agent TEXT PRIMARY KEY);
        CREATE TABLE engine_queue_turns (queue TEXT PRIMARY KEY, agent TEXT NOT NULL);
        """,
        "ALTER TABLE engine_greeted ADD COLUMN message TEXT;",
    ])

    /// Opens (creating and migrating) the database at `path`, a SQLite file or a
    /// `postgres://…#schema` location.
    public init(path: String) throws(BotError) {
        do {
            (connection, writer) = try StoreWriter.open(path: path, migrations: Self.migrations)
            let pool = connection.isPostgres ? ConnectionPool(location: path, size: Self.postgresPoolSize) : nil
            self.pool = pool
            readers = writer == nil || StoreLocation.isMemory(path) ? nil : ConnectionPool(location: path, size: Self.sqliteReaders)
            behind = pool.map { [failureReport] pool in
                WriteBehind(label: "parley-bot-store-writes", perform: { write in _ = try pool.with { try $0.batch(write) } },
                            failed: { error in failureReport.send("cannot save a conversation's state: \(error)") })
            }
        } catch {
            throw BotError("cannot open the bot state database \(StoreLocation(path).shown): \(error)")
        }
    }

    public var isPersistent: Bool { true }

    /// A ticket's key in the store.
    private struct TicketKey: Hashable, Sendable {
        let queue: String
        let number: Int
        let bot: String

        init(_ ticket: Ticket) {
            (queue, number, bot) = (ticket.queue, ticket.number, ticket.bot)
        }
    }

    /// A bot's conversation, as a key.
    private struct Conversation: Hashable, Sendable {
        let bot: String
        let channel: String
    }

    /// A conversation's own work (its state, the inbox): on a pooled connection when there is
    /// a pool, else as every other call (`locked`: through the writer on SQLite).
    /// After the writes behind, unless `afterWritesBehind` is false.
    func perMessage<T>(afterWritesBehind: Bool = true, _ body: (Connection) throws -> T) throws -> T {
        guard let pool else { return try locked { try body(connection) } }
        if afterWritesBehind { behind?.flush() }
        do {
            return try pool.with(body)
        } catch let error as BotError {
            throw error
        } catch {
            throw BotError("bot state storage failed: \(error)")
        }
    }

    func locked<T>(_ body: () throws -> T) throws -> T {
        // On SQLite the writer runs one job at a time, on its thread: no lock is needed, and
        // calls made at the same time share its next transaction instead of taking turns.
        if let writer { return try storageErrors { try writer.perform { _ in try body() } } }
        behind?.flush()
        lock.lock()
        defer { lock.unlock() }
        return try storageErrors { try body() }
    }

    /// A read that needs no queued write before it (tickets and agents are never written
    /// behind: their writers wait for the commit, and the reads that decide show what is
    /// pending): beside the writer on SQLite; elsewhere under the lock, after the writes behind.
    private func readCommitted<T>(_ body: (Connection) throws -> T) throws -> T {
        if let readers { return try storageErrors { try readers.with(body) } }
        return try locked { try body(connection) }
    }

    /// `body`'s result, a failure of the storage named as such.
    private func storageErrors<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw Self.named(error) }
    }

    /// A failure of the storage, named as such (a `BotError` already is).
    private static func named(_ error: any Error) -> any Error {
        error is BotError ? error : BotError("bot state storage failed: \(error)")
    }

    /// `locked`, for a write whose caller can wait without holding a thread: on SQLite it
    /// suspends until the writer committed `body`; elsewhere it is `locked`.
    /// On the caller's executor up to the suspension, so writes queue in the order called.
    private nonisolated(nonsending) func written<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        guard let writer else { return try locked(body) }
        do { return try await writer.write { _ in try body() } } catch { throw Self.named(error) }
    }

    /// `written`, for a write of `ticket`, of a queue's `turn` and of the state of
    /// `conversation` (those given): the reads show them from the call until the writer
    /// committed them. (Named apart: with every argument but `body` optional, `written(body)`
    /// would call it.)
    private nonisolated(nonsending) func writtenShown(ticket: Ticket? = nil, turn: (queue: String, agent: String)? = nil,
                                                      stateOf conversation: Conversation? = nil,
                                                      _ body: @escaping @Sendable () throws -> Void) async throws {
        guard writer != nil else { return try locked(body) }
        if let ticket { pendingTickets.queued(TicketKey(ticket), ticket) }
        if let turn { pendingTurns.queued(turn.queue, turn.agent) }
        if let conversation { pendingStates.queued(conversation, ()) }
        defer {
            if let ticket { pendingTickets.settled(TicketKey(ticket)) }
            if let turn { pendingTurns.settled(turn.queue) }
            if let conversation { pendingStates.settled(conversation) }
        }
        try await written(body)
    }

    public func state(bot: String, channel: String) throws -> ConversationState? {
        let read = { [decoder] (connection: Connection) throws -> ConversationState? in
            guard let text = try connection.scalar("SELECT state FROM engine_states WHERE bot = ? AND channel = ?",
                                                   [.text(bot), .text(channel)])?.string else { return nil }
            return try decoder.decode(ConversationState.self, from: Data(text.utf8))
        }
        // Beside the writer when every write of the conversation has committed (a reader
        // then sees it); else through the writer, whose next batch comes after them.
        if readers != nil, pendingStates.value(Conversation(bot: bot, channel: channel)) == nil {
            return try readCommitted(read)
        }
        return try perMessage(read)
    }

    public func save(_ state: ConversationState?, bot: String, channel: String, handled: String?) throws {
        // One batch: a transaction on SQLite, one round trip on PostgreSQL.
        var statements = [try write(state, bot: bot, channel: channel)]
        if let handled { statements.append(Self.removal(of: handled, bot: bot)) }
        // Only a handled message's write goes behind: a restart does it again. A state saved
        // for anything else (a timer, a ticket's end) is not redone, so it is written now.
        if handled != nil, let queued = queueBehind(statements, of: Conversation(bot: bot, channel: channel)) { return queued }
        _ = try perMessage { connection in try connection.batch(statements) }
    }

    /// The statement that takes message `id` out of `bot`'s inbox.
    private static func removal(of id: String, bot: String) -> (sql: String, values: [StoreValue]) {
        ("DELETE FROM engine_inbox WHERE bot = ? AND message_id = ?", [.text(bot), .text(id)])
    }

    public func flushWrites() {
        behind?.flush()
        writer?.flush()
    }

    /// Queues `statements` (all or none) to be committed behind the caller, on whichever of
    /// `writer` and `behind` the store has; nil if neither (the caller writes them now).
    /// `conversation`: whose state they write, which is read through the writer until they
    /// committed.
    private func queueBehind(_ statements: WriteBehind.Write, of conversation: Conversation? = nil) -> Void? {
        if let writer {
            if let conversation { pendingStates.queued(conversation, ()) }
            writer.submit({ connection in try connection.batch(statements) }, done: { [self] result in
                // After the COMMIT: a reader sees the write from now on.
                if let conversation { pendingStates.settled(conversation) }
                if case .failure(let error) = result { failureReport.send("cannot save a conversation's state: \(error)") }
            })
            return ()
        }
        return behind.map { $0.enqueue(statements) }
    }

    /// Sends the writes given up on behind (each after a try alone) to `report` instead of
    /// standard error: the host logs them.
    public func reportWriteFailures(to report: @escaping @Sendable (String) -> Void) {
        failureReport.destination.withLock { $0 = report }
    }

    /// The statement that stores (or, for nil, deletes) a conversation's state.
    private func write(_ state: ConversationState?, bot: String, channel: String) throws -> (sql: String, values: [StoreValue]) {
        guard let state else { return ("DELETE FROM engine_states WHERE bot = ? AND channel = ?", [.text(bot), .text(channel)]) }
        let text = String(decoding: try encoder.encode(state), as: UTF8.self)
        // The column holds the earliest timer, so the start-up query finds every state with one.
        let deadline: StoreValue = state.nextTimer.map { .real($0.timeIntervalSince1970) } ?? .null
        return ("""
            INSERT INTO engine_states (bot, channel, state, deadline) VALUES (?, ?, ?, ?)
            ON CONFLICT(bot, channel) DO UPDATE SET state = excluded.state, deadline = excluded.deadline
            """, [.text(bot), .text(channel), .text(text), deadline])
    }

    public func receive(_ messages: [ReceivedMessage], bot: String) async throws {
        guard !messages.isEmpty else { return }
        if let writer {
            do {
                return try await writer.write { connection in try Self.insert(messages, bot: bot, into: connection) }
            } catch {
                throw BotError("bot state storage failed: \(error)")
            }
        }
        // Need not wait for the writes behind: they only remove messages received before these
        // (a message is removed once handled, and handled once received).
        try perMessage(afterWritesBehind: false) { connection in try Self.insert(messages, bot: bot, into: connection) }
    }

    /// Writes `messages` into `bot`'s inbox: one multi-row statement a chunk (a lone statement
    /// needs no transaction around it, which on PostgreSQL saves two round trips per batch).
    private static func insert(_ messages: [ReceivedMessage], bot: String, into connection: Connection) throws {
        let chunks = stride(from: 0, to: messages.count, by: inboxRowsPerInsert).map {
            messages[$0..<min($0 + inboxRowsPerInsert, messages.count)]
        }
        func insert(_ chunk: ArraySlice<ReceivedMessage>) throws {
            try connection.run("INSERT OR IGNORE INTO engine_inbox (bot, message_id, message) VALUES "
                               + Array(repeating: "(?, ?, ?)", count: chunk.count).joined(separator: ", "),
                               chunk.flatMap { [.text(bot), .text($0.id), .text($0.storedJSON)] as [StoreValue] })
        }
        if chunks.count == 1 { return try insert(chunks[0]) }
        try connection.transaction { for chunk in chunks { try insert(chunk) } }
    }

    /// Messages written per INSERT by `receive`.
    static let inboxRowsPerInsert = 200

    public func handled(_ messageID: String, bot: String) throws {
        let removal = Self.removal(of: messageID, bot: bot)
        if let queued = queueBehind([removal]) { return queued }
        try perMessage { connection in try connection.run(removal.sql, removal.values) }
    }

    public func unhandled(bot: String) throws -> [ReceivedMessage] {
        try locked {
            try connection.rows("SELECT message FROM engine_inbox WHERE bot = ? ORDER BY position", [.text(bot)]).compactMap { row in
                guard let text = row[0].string else { return nil }
                return try decoder.decode(ReceivedMessage.self, from: Data(text.utf8))
            }
        }
    }

    public func statesWithTimers(bot: String) throws -> [(channel: String, state: ConversationState)] {
        try locked {
            try connection.rows("SELECT channel, state FROM engine_states WHERE bot = ? AND deadline IS NOT NULL ORDER BY channel",
                                [.text(bot)]).compactMap { row in
                guard let channel = row[0].string, let text = row[1].string else { return nil }
                return (channel, try decoder.decode(ConversationState.self, from: Data(text.utf8)))
            }
        }
    }

    public nonisolated(nonsending) func markGreeted(bot: String, key: String, at now: Date, message: String?) async throws -> Bool {
        try await written { [self] in
            let seen = StoreValue.real(now.timeIntervalSince1970)
            try connection.run("INSERT OR IGNORE INTO engine_greeted (bot, key, seen, message) VALUES (?, ?, ?, ?)",
                               [.text(bot), .text(key), seen, StoreValue(message)])
            guard connection.changes == 0 else { return true }
            try connection.run("UPDATE engine_greeted SET seen = ? WHERE bot = ? AND key = ?", [seen, .text(bot), .text(key)])
            guard let message else { return false }
            return try connection.scalar("SELECT message FROM engine_greeted WHERE bot = ? AND key = ?", [.text(bot), .text(key)])?.string == message
        }
    }

    public func prune(before cutoff: Date) throws -> Int {
        try locked {
            try connection.transaction {
                let time = StoreValue.real(cutoff.timeIntervalSince1970)
                try connection.run("DELETE FROM engine_greeted WHERE seen < ?", [time])
                var deleted = connection.changes
                try connection.run("DELETE FROM engine_tickets WHERE unresolved = 0 AND resolved_at < ?", [time])
                deleted += connection.changes
                return deleted
            }
        }
    }

    public nonisolated(nonsending) func open(_ ticket: Ticket) async throws -> Ticket {
        try await written { [self] in
            try connection.transaction {
                if let text = try connection.scalar(
                    "SELECT ticket FROM engine_tickets WHERE bot = ? AND channel = ? AND unresolved = 1 ORDER BY rowid DESC LIMIT 1",
                    [.text(ticket.bot), .text(ticket.channel)])?.string {
                    return try decoder.decode(Ticket.self, from: Data(text.utf8))
                }
                // One statement draws the number, inside the write transaction: bots sharing
                // the store (under the lock) or the file (BEGIN IMMEDIATE) never draw the same.
                // The old value is named by its table: PostgreSQL would find `last` in `excluded` too.
                guard let number = try connection.scalar("""
                    INSERT INTO engine_ticket_numbers (queue, last) VALUES (?, 1)
                    ON CONFLICT(queue) DO UPDATE SET last = engine_ticket_numbers.last + 1 RETURNING last
                    """, [.text(ticket.queue)])?.int else {
                    throw BotError("no ticket number drawn for queue \(ticket.queue)")
                }
                var ticket = ticket
                ticket.number = number
                try write(ticket, insert: true)
                return ticket
            }
        }
    }

    public func tickets(queue: String, number: Int) throws -> [Ticket] {
        // Taken before the read: a write pending now is shown even if it commits meanwhile.
        let pending = pendingTickets.values { $0.queue == queue && $0.number == number }
        let stored = try readCommitted { connection in
            try connection.rows("SELECT ticket FROM engine_tickets WHERE queue = ? AND number = ? ORDER BY rowid",
                                [.text(queue), .integer(Int64(number))]).compactMap { row -> Ticket? in
                guard let text = row[0].string else { return nil }
                return try decoder.decode(Ticket.self, from: Data(text.utf8))
            }
        }
        return stored.map { Self.shown($0, pending: pending) }
    }

    public func ticket(bot: String, channel: String, number: Int) throws -> Ticket? {
        let pending = pendingTickets.values { $0.bot == bot && $0.channel == channel && $0.number == number }
        let stored = try readCommitted { connection -> Ticket? in
            guard let text = try connection.scalar(
                "SELECT ticket FROM engine_tickets WHERE bot = ? AND channel = ? AND number = ? ORDER BY rowid DESC LIMIT 1",
                [.text(bot), .text(channel), .integer(Int64(number))])?.string else { return nil }
            return try decoder.decode(Ticket.self, from: Data(text.utf8))
        }
        guard let stored else { return pending.first }
        return Self.shown(stored, pending: pending)
    }

    /// `stored` as the reads show it: its pending write's version, if one is among `pending`
    /// (taken before `stored` was read, so a write that committed meanwhile is not missed).
    private static func shown(_ stored: Ticket, pending: [Ticket]) -> Ticket {
        pending.first { TicketKey($0) == TicketKey(stored) } ?? stored
    }

    public nonisolated(nonsending) func update(_ ticket: Ticket) async throws {
        try await writtenShown(ticket: ticket) { [self] in try write(ticket, insert: false) }
    }

    public nonisolated(nonsending) func update(_ ticket: Ticket, state: ConversationState?) async throws {
        try await writtenShown(ticket: ticket, stateOf: Conversation(bot: ticket.bot, channel: ticket.channel)) { [self] in
            try connection.transaction {
                try write(ticket, insert: false)
                let state = try write(state, bot: ticket.bot, channel: ticket.channel)
                try connection.run(state.sql, state.values)
            }
        }
    }

    private func write(_ ticket: Ticket, insert: Bool) throws {
        let text = String(decoding: try encoder.encode(ticket), as: UTF8.self)
        let unresolved: Int64 = ticket.status == .resolved ? 0 : 1
        // A ticket resolved without a time (by an older caller) counts from now.
        let resolvedAt: StoreValue = ticket.status == .resolved ? .real((ticket.resolvedAt ?? Date()).timeIntervalSince1970) : .null
        if insert {
            try connection.run("""
                INSERT INTO engine_tickets (queue, number, bot, ticket, channel, unresolved, resolved_at) VALUES (?, ?, ?, ?, ?, ?, ?)
                """, [.text(ticket.queue), .integer(Int64(ticket.number)), .text(ticket.bot), .text(text), .text(ticket.channel),
                      .integer(unresolved), resolvedAt])
        } else {
            let key: [StoreValue] = [.text(ticket.queue), .integer(Int64(ticket.number)), .text(ticket.bot)]
            // A ticket that stays unresolved changes its JSON alone: assigning the status
            // columns makes SQLite rewrite the entries of every index naming them (the partial
            // index of resolved tickets does, in its condition), unchanged or not. A ticket's
            // conversation never changes (a move opens a new ticket), so `channel` is not set.
            if ticket.status != .resolved {
                try connection.run("UPDATE engine_tickets SET ticket = ? WHERE queue = ? AND number = ? AND bot = ? AND unresolved = 1",
                                   [.text(text)] + key)
                guard connection.changes == 0 else { return }
            }
            try connection.run("UPDATE engine_tickets SET ticket = ?, unresolved = ?, resolved_at = ? WHERE queue = ? AND number = ? AND bot = ?",
                               [.text(text), .integer(unresolved), resolvedAt] + key)
        }
    }

    public nonisolated(nonsending) func transfer(_ ticket: Ticket, to queue: String, note: String, at now: Date) async throws -> Ticket {
        try await written { [self] in
            try connection.transaction {
                guard let number = try connection.scalar("""
                    INSERT INTO engine_ticket_numbers (queue, last) VALUES (?, 1)
                    ON CONFLICT(queue) DO UPDATE SET last = engine_ticket_numbers.last + 1 RETURNING last
                    """, [.text(queue)])?.int else {
                    throw BotError("no ticket number drawn for queue \(queue)")
                }
                let next = ticket.successor(in: queue, number: number, note: note, at: now)
                try write(ticket.closed(movingTo: next, at: now), insert: false)
                try write(next, insert: true)
                return next
            }
        }
    }

    public nonisolated(nonsending) func setAway(_ agent: String, _ away: Bool) async throws {
        try await written { [self] in
            try connection.run(away ? "INSERT OR IGNORE INTO engine_agents_away (agent) VALUES (?)"
                                    : "DELETE FROM engine_agents_away WHERE agent = ?", [.text(agent)])
        }
    }

    public func awayAgents() throws -> Set<String> {
        try readCommitted { connection in Set(try connection.rows("SELECT agent FROM engine_agents_away", []).compactMap { $0[0].string }) }
    }

    public func lastAssigned(queue: String) throws -> String? {
        if let pending = pendingTurns.value(queue) { return pending }
        return try readCommitted { connection in try connection.scalar("SELECT agent FROM engine_queue_turns WHERE queue = ?", [.text(queue)])?.string }
    }

    public nonisolated(nonsending) func setLastAssigned(queue: String, agent: String) async throws {
        try await writtenShown(turn: (queue, agent)) { [self] in try writeTurn(queue: queue, agent: agent) }
    }

    public nonisolated(nonsending) func assign(_ ticket: Ticket) async throws {
        try await writtenShown(ticket: ticket, turn: ticket.agent.map { (ticket.queue, $0) }) { [self] in
            guard let agent = ticket.agent else { return try write(ticket, insert: false) }
            try connection.transaction {
                try write(ticket, insert: false)
                try writeTurn(queue: ticket.queue, agent: agent)
            }
        }
    }

    private func writeTurn(queue: String, agent: String) throws {
        try connection.run("INSERT INTO engine_queue_turns (queue, agent) VALUES (?, ?) ON CONFLICT(queue) DO UPDATE SET agent = excluded.agent",
                           [.text(queue), .text(agent)])
    }
}

/// Where a store reports what it could not write behind its callers' backs: standard error
/// until the host routes it to its log.
final class FailureReport: Sendable {
    let destination = Mutex<@Sendable (String) -> Void>({ line in
        FileHandle.standardError.write(Data("parley: \(line)\n".utf8))
    })

    func send(_ line: String) { destination.withLock { $0 }(line) }
}
