import Foundation
import ParleyCore
import ParleyStore
import Synchronization

/// The hub's SQLite store: its tables in a file it may share with other stores (`parley run`
/// keeps them in `parley.db`). Writes go through the file's one writer (`StoreWriter`, a
/// thread of its own, group commits shared with the file's other stores); reads use a connection of their own behind a lock, and see what
/// the writer committed. A thread may wait for the writer while holding the hub's state lock:
/// the writer never takes that lock.
final class HubDatabase: Sendable {
    let writer: StoreWriter
    let reader: Mutex<Connection>

    static let migrations = Migrations(name: "hub", steps: [
        """
        CREATE TABLE hub_users (id TEXT PRIMARY KEY, profile TEXT NOT NULL);
        CREATE TABLE hub_channels (
            number INTEGER PRIMARY KEY, kind TEXT NOT NULL, first TEXT NOT NULL, second TEXT NOT NULL,
            name TEXT, seq INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE hub_members (
            channel INTEGER NOT NULL, user TEXT NOT NULL, cursor INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (channel, user)) WITHOUT ROWID;
        CREATE TABLE hub_messages (
            channel INTEGER NOT NULL, seq INTEGER NOT NULL, client_id BLOB NOT NULL, sender TEXT NOT NULL,
            time REAL NOT NULL, payload TEXT NOT NULL, flags INTEGER NOT NULL,
            reply TEXT, visible_to TEXT, extensions TEXT,
            PRIMARY KEY (channel, seq)) WITHOUT ROWID;
        CREATE TABLE hub_reactions (
            channel INTEGER NOT NULL, seq INTEGER NOT NULL, emoji TEXT NOT NULL, user TEXT NOT NULL,
            position INTEGER NOT NULL, PRIMARY KEY (channel, seq, emoji, user)) WITHOUT ROWID;
        """,
    ])

    /// Opens (creating and migrating) the database at `path`.
    init(path: String) throws {
        do {
            writer = try StoreWriter.shared(path: path, migrations: Self.migrations)
            reader = Mutex(try Connection(path: path))
        } catch {
            throw ParleyError(.storage, "cannot open hub database: \(error)", context: ["path": path])
        }
    }

    /// Runs `body` with the reading connection, turning SQLite errors into `ParleyError(.storage)`.
    func read<T: Sendable>(_ body: (Connection) throws -> T) throws -> T {
        do {
            return try reader.withLock { try body($0) }
        } catch {
            throw Hub.storageError(error)
        }
    }

    /// Runs `body` on the writer in its next transaction and waits for the COMMIT, turning
    /// SQLite errors into `ParleyError(.storage)`.
    func write<T>(_ body: (Connection) throws -> T) throws -> T {
        do {
            return try writer.perform(body)
        } catch {
            throw Hub.storageError(error)
        }
    }

    // MARK: - Users, channels, members

    func saveUser(_ profile: Profile) throws {
        let json = String(decoding: try JSONEncoder().encode(profile), as: UTF8.self)
        try write { try $0.run("INSERT OR REPLACE INTO hub_users (id, profile) VALUES (?, ?)", [.text(profile.id), .text(json)]) }
    }

    /// Writes a channel row and its members (used for groups and new person channels). A row
    /// already there under this number must be this very channel (a group saved again): one
    /// of another conversation means another process numbered channels in this file too, and
    /// the write is refused — merging its members would let strangers into each other's
    /// conversations, and its messages would be filed there.
    static func insertChannel(_ connection: Connection, index: Int, key: ChannelKey, name: String?, members: [(String, Int64)]) throws {
        try connection.run(
            "INSERT OR IGNORE INTO hub_channels (number, kind, first, second, name) VALUES (?, ?, ?, ?, ?)",
            [.integer(Int64(index)), .text(key.kind.rawValue), .text(key.first), .text(key.second), StoreValue(name)])
        if connection.changes == 0 {
            let row = try connection.rows("SELECT kind, first, second FROM hub_channels WHERE number = ?", [.integer(Int64(index))]).first
            guard row?[0].string == key.kind.rawValue, row?[1].string == key.first, row?[2].string == key.second else {
                throw ParleyError(.storage, "hub channel number \(index) belongs to another conversation in the file: another process "
                                  + "writes this hub too; nothing was written", context: ["channel": String(index)])
            }
        }
        for (user, cursor) in members {
            try connection.run(
                "INSERT OR REPLACE INTO hub_members (channel, user, cursor) VALUES (?, ?, ?)",
                [.integer(Int64(index)), .text(user), .integer(cursor)])
        }
    }

    func saveChannel(index: Int, _ channel: ChannelState) throws {
        try write { connection in
            try connection.transaction {
                try Self.insertChannel(connection, index: index, key: channel.key, name: channel.name,
                                       members: channel.members.map { ($0.key, $0.value) })
            }
        }
    }

    func saveMember(_ user: String, cursor: Int64, channel: Int) throws {
        try write { try $0.run("INSERT OR REPLACE INTO hub_members (channel, user, cursor) VALUES (?, ?, ?)",
                                [.integer(Int64(channel)), .text(user), .integer(cursor)]) }
    }

    func deleteMember(_ user: String, channel: Int) throws {
        try write { try $0.run("DELETE FROM hub_members WHERE channel = ? AND user = ?", [.integer(Int64(channel)), .text(user)]) }
    }

    /// Writes the delivery cursors of `user` (or of everyone), so catch-up after a reopen
    /// resumes where it stopped. Written when a stream ends, not per delivery: after a crash
    /// a user may get again what it was given since (clients drop duplicates by id).
    func saveCursors(_ state: HubState, of user: String? = nil) throws {
        try write { connection in
            try connection.transaction {
                let update = try connection.prepare("UPDATE hub_members SET cursor = ? WHERE channel = ? AND user = ?")
                if let user {
                    for index in state.userChannels[user] ?? [] {
                        guard let cursor = state.channels[index].members[user], cursor > 0 else { continue }
                        try update.run([.integer(cursor), .integer(Int64(index)), .text(user)])
                    }
                    return
                }
                for (index, channel) in state.channels.enumerated() where channel.committedSeq > 0 {
                    for (member, cursor) in channel.members where cursor > 0 {
                        try update.run([.integer(cursor), .integer(Int64(index)), .text(member)])
                    }
                }
            }
        }
    }
}
