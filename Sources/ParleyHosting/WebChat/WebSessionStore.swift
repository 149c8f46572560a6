import Foundation
import ParleyBots
import ParleyCore
import ParleyStore

/// The visitors' sessions on disk (in `storage.path`, through its one writer), so a restart or a deploy
/// does not turn every open chat into a stranger: the cookie still names the same visitor, who
/// finds their conversation, and an open hand-off, where they left it. The cookie's secret
/// itself is not kept, only its SHA-1: a copy of the file opens no session.
final class WebSessionStore: Sendable {
    /// One stored session.
    struct Record: Sendable, Equatable {
        var visitor: String
        var bot: String
        var name: String
        var lastUsed: Date
    }

    static let migrations = Migrations(name: "web", steps: [
        """
        CREATE TABLE web_sessions (secret_hash TEXT PRIMARY KEY, visitor TEXT NOT NULL, bot TEXT NOT NULL,
                                   name TEXT NOT NULL, last_used REAL NOT NULL) WITHOUT ROWID;
        CREATE INDEX web_sessions_last_used ON web_sessions (last_used);
        """,
    ])

    /// Nil in memory (`storage.path: ":memory:"`): sessions live as long as the process.
    private let store: StoreHandle?

    /// Opens (creating) the store at `path`; `:memory:` keeps nothing.
    init(path: String) throws {
        store = path == ":memory:" ? nil : try StoreHandle(path: path, migrations: Self.migrations)
    }

    /// The sessions' store of `storage`: its tables in the host's file, moved there (once, with
    /// a log line) from `parley.web.db` beside it, where a release before kept them. In memory
    /// nothing is kept; on PostgreSQL the schema `parley_web`.
    static func open(_ storage: HostStorage, logger: BotLogger, clock: any ParleyClock) throws -> WebSessionStore {
        try WebSessionStore(path: storage.location(ofStore: "web", movingIn: { legacy, path in
            try StoreMove.move(["web_sessions"], of: migrations, from: legacy, into: path).map { move in
                "moved the web chat's \(move.rows["web_sessions"] ?? 0) visitor sessions from \(legacy) into \(path); "
                    + "the old file is kept as \(move.backup)"
            }
        }, log: { logger.log(.info, at: clock.now(), bot: nil, $0, [:]) }))
    }

    /// Runs `body` on the store; nil in memory.
    private func access<T>(_ body: (Connection) throws -> T) throws -> T? {
        try store?.run(body)
    }

    static func key(_ secret: String) -> String { SHA1.hex(SHA1.digest(secret.utf8)) }

    func save(secret: String, _ record: Record) throws {
        try access { connection in
            try connection.run("""
                INSERT INTO web_sessions (secret_hash, visitor, bot, name, last_used) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(secret_hash) DO UPDATE SET name = excluded.name, last_used = excluded.last_used
                """, [.text(Self.key(secret)), .text(record.visitor), .text(record.bot), .text(record.name),
                      .real(record.lastUsed.timeIntervalSince1970)])
        }
    }

    func touch(secret: String, at date: Date) throws {
        try access { connection in
            try connection.run("UPDATE web_sessions SET last_used = ? WHERE secret_hash = ?",
                                [.real(date.timeIntervalSince1970), .text(Self.key(secret))])
        }
    }

    /// The session of `secret`, if one is stored.
    func find(secret: String) throws -> Record? {
        try access { connection -> Record? in
            guard let row = try connection.rows("SELECT visitor, bot, name, last_used FROM web_sessions WHERE secret_hash = ?",
                                                 [.text(Self.key(secret))]).first,
                  let visitor = row[0].string, let bot = row[1].string, let name = row[2].string, let used = row[3].double else { return nil }
            return Record(visitor: visitor, bot: bot, name: name, lastUsed: Date(timeIntervalSince1970: used))
        } ?? nil
    }

    /// Forgets the sessions unused since `cutoff`; how many.
    @discardableResult
    func deleteUnused(before cutoff: Date) throws -> Int {
        try access { connection in
            try connection.run("DELETE FROM web_sessions WHERE last_used < ?", [.real(cutoff.timeIntervalSince1970)])
            return connection.changes
        } ?? 0
    }
}
