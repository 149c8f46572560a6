import Foundation
import ParleyStore

/// When each schedule last fired, in SQLite or PostgreSQL, so a restarted host knows which runs it missed.
public final class SchedulerStore: Sendable {
    private let store: StoreHandle

    static let migrations = Migrations(name: "scheduler", steps: [
        """
        CREATE TABLE scheduler_fires (
            bot TEXT NOT NULL, schedule TEXT NOT NULL, last_fire REAL NOT NULL,
            PRIMARY KEY (bot, schedule)) WITHOUT ROWID;
        """,
    ], postgresSteps: [
        """
        CREATE TABLE scheduler_fires (
            bot TEXT NOT NULL, schedule TEXT NOT NULL, last_fire DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (bot, schedule));
        """,
    ])

    /// Opens (creating and migrating) the database at `path`, a SQLite file (`":memory:"` keeps
    /// nothing) or a `postgres://…#schema` location.
    public init(path: String) throws(BroadcastError) {
        do {
            store = try StoreHandle(path: path, migrations: Self.migrations)
        } catch {
            throw BroadcastError(.storage, "cannot open the schedule store at \(StoreLocation(path).shown): \(error)")
        }
    }

    /// When the schedule `name` of `bot` last fired (the run it fired for), if ever.
    public func lastFire(bot: String, schedule name: String) throws(BroadcastError) -> Date? {
        do {
            return try store.run { connection in
                try connection.scalar("SELECT last_fire FROM scheduler_fires WHERE bot = ? AND schedule = ?", [.text(bot), .text(name)])?
                    .double.map(Date.init(timeIntervalSince1970:))
            }
        } catch {
            throw BroadcastError(.storage, "cannot read the state of schedule '\(name)' of \(bot): \(error)")
        }
    }

    /// Records that the schedule fired for the run due at `fire`.
    public func setLastFire(bot: String, schedule name: String, _ fire: Date) throws(BroadcastError) {
        do {
            try store.run { connection in
                try connection.run(
                    "INSERT INTO scheduler_fires (bot, schedule, last_fire) VALUES (?, ?, ?) ON CONFLICT(bot, schedule) DO UPDATE SET last_fire = excluded.last_fire",
                    [.text(bot), .text(name), .real(fire.timeIntervalSince1970)])
            }
        } catch {
            throw BroadcastError(.storage, "cannot record the state of schedule '\(name)' of \(bot): \(error)")
        }
    }
}
