import Foundation
import ParleyBots
import ParleyCore
import ParleyStore

/// Where a host keeps its state: `storage.path` (SQLite, WAL) and the files beside it — the
/// embedded hub, each bot's client (outbox and history), each Matrix account's session — or
/// nothing at all with `:memory:` — or `storage.url`, a PostgreSQL database that several
/// processes share, where each of those files is a schema (`parley`, `parley_<bot>`, …).
/// Every transport keeps the same things in the same places.
public struct HostStorage: Sendable {
    /// The path as the user wrote it, or the URL without its password (for messages).
    public let shownPath: String
    /// The file-system path, `:memory:`, or the PostgreSQL URL.
    public let path: String
    /// On PostgreSQL: the leases this process holds, fencing each bot's own stores.
    public let fences: FenceBook?
    /// `storage.durability` (see `lock(holder:)`).
    let durability: StoreDurability

    /// The default `storage.path`.
    public static let defaultPath = ".parley/parley.db"

    /// The storage of `config` (`override` replaces its path: `parley chat` keeps nothing);
    /// `resolve` maps a path as written to the file system.
    public init(config: HostConfig?, resolve: (String) -> String, override: String? = nil) {
        let written = override ?? config?.storagePath ?? Self.defaultPath
        durability = config?.durability ?? .normal
        if StoreLocation.isPostgresURL(written) {
            shownPath = StoreLocation.withoutPassword(written)
            path = written
            fences = FenceBook()
        } else {
            shownPath = written
            path = written == ":memory:" ? written : resolve(written)
            fences = nil
        }
    }

    /// Nothing survives the process.
    public var isMemory: Bool { path == ":memory:" }

    /// The state is in PostgreSQL (`storage.url`): shared with other processes.
    public var isPostgres: Bool { StoreLocation.isPostgresURL(path) }

    /// `.parley/parley.db` → `.parley/parley.NAME.db` (`:memory:` stays in memory); on
    /// PostgreSQL the schema `parley_NAME`.
    public func sibling(_ name: String) -> String {
        if isMemory { return path }
        if isPostgres { return StoreLocation.postgres(path, schema: "parley_" + name) }
        let base = path.hasSuffix(".db") ? String(path.dropLast(3)) : path
        return "\(base).\(name).db"
    }

    /// This process's hold on the store (nil in memory: nothing is shared), taken before
    /// anything is opened, and the store checked not truncated under it. Sets the process's
    /// `StoreDurability` first: every database opened after it syncs as the config says.
    /// - Throws: `HostError` naming the process that holds it, or the empty databases.
    /// On PostgreSQL there is no file to hold: processes share the database by leases.
    public func lock(holder: String) throws(HostError) -> StoreLock? {
        StoreDurability.current = durability
        guard !isMemory, !isPostgres else { return nil }
        let lock = try StoreLock(storagePath: path, shownPath: shownPath, holder: holder)
        try checkNotEmpty()
        return lock
    }

    /// Refuses to start over a truncated store: a database file that exists but holds nothing
    /// (and no write-ahead log that could restore it) would otherwise be recreated empty, and
    /// every job, ticket and message in it lost without a word.
    /// - Throws: `HostError` naming each empty database.
    private func checkNotEmpty() throws(HostError) {
        let folder = (path as NSString).deletingLastPathComponent
        let base = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        let manager = FileManager.default
        let names = (try? manager.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []
        let databases = names.filter { $0 == (path as NSString).lastPathComponent
            || ($0.hasSuffix(".db") && ($0.hasPrefix(base + ".") || $0.hasPrefix("matrix-"))) }
        var empty: [String] = []
        for name in databases.sorted() {
            let file = folder.isEmpty ? name : folder + "/" + name
            func size(_ path: String) -> Int? { (try? manager.attributesOfItem(atPath: path))?[.size] as? Int }
            if size(file) == 0, (size(file + "-wal") ?? 0) == 0 { empty.append(name) }
        }
        guard empty.isEmpty else {
            let shownFolder = (shownPath as NSString).deletingLastPathComponent
            let shown = empty.map { shownFolder.isEmpty ? $0 : shownFolder + "/" + $0 }
            throw HostError("\(shown.joined(separator: ", ")) \(shown.count == 1 ? "is" : "are") empty (0 bytes): truncated, or not "
                            + "Parley's; restore from a backup, or move \(shown.count == 1 ? "it" : "them") away to start afresh")
        }
    }

    /// Where a run's log lines go when the terminal is busy (`.parley/parley.log`): the
    /// file-system path and the path as shown. Nil in memory.
    public var logFile: (path: String, shownPath: String)? {
        guard !isMemory, !isPostgres else { return nil }
        func log(_ path: String) -> String { (path.hasSuffix(".db") ? String(path.dropLast(3)) : path) + ".log" }
        return (log(path), log(shownPath))
    }

    /// The folder of `path`, created if missing: per-account files go there. In memory, a
    /// temporary folder of this process (a restart starts over).
    public func folder() throws -> String {
        let folder: String
        if isMemory {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-\(ProcessInfo.processInfo.processIdentifier)").path
        } else {
            let parent = (path as NSString).deletingLastPathComponent
            folder = parent.isEmpty ? "." : parent
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Where each Matrix account's own databases go (`matrix-<bot>`, `crypto-<bot>`).
    public func accountDatabases() throws -> AccountDatabases {
        isPostgres ? AccountDatabases(postgresURL: path, fences: fences) : AccountDatabases(folder: try folder())
    }

    /// A bot client's storage: its outbox survives a crash unless the host keeps nothing.
    public func chat(bot: String) -> ChatStorage {
        isMemory ? .memory : .sqlite(path: botSibling(bot))
    }

    /// A bot client's storage on a transport that records what it delivered and never
    /// delivers a message twice (Matrix): only the outbox on disk.
    public func outbox(bot: String) -> ChatStorage {
        isMemory ? .memory : .outboxOnly(path: botSibling(bot))
    }

    /// Bot `bot`'s own store beside the host's; on PostgreSQL fenced by the bot's lease.
    private func botSibling(_ bot: String) -> String {
        guard isPostgres else { return sibling(bot) }
        return StoreLocation.postgres(path, schema: "parley_" + bot, fence: fences?.fence(of: bot))
    }

    /// Where a store keeps its tables that a release before kept in a file of its own
    /// (`parley.NAME.db` beside `path`): `path` itself, once `move` has moved them in from
    /// that file (it returns the line to `log`, or nil when there was no such file);
    /// `:memory:` in memory; on PostgreSQL the schema `parley_NAME`, as before.
    func location(ofStore name: String, movingIn move: (_ legacy: String, _ path: String) throws -> String?,
                  log: (String) -> Void) throws -> String {
        guard !isMemory, !isPostgres else { return sibling(name) }
        if let line = try move(sibling(name), path) { log(line) }
        return path
    }

    /// Conversation states, greetings and tickets.
    public func botStore() throws -> any BotStore {
        isMemory ? MemoryBotStore() : try DatabaseBotStore(path: path)
    }

    /// The durable broadcast jobs, with the config's global cap.
    public func broadcastService(config: HostConfig?, clock: any ParleyClock,
                                 log: @escaping @Sendable (String) -> Void) throws -> BroadcastService {
        BroadcastService(store: try BroadcastStore(path: path), clock: clock,
                         configuration: BroadcastConfiguration(globalLimit: try Self.globalLimit(config)), log: log)
    }

    /// The options `parley run` gives its `BotHost`: the message size limit, durable broadcasts
    /// and the cron scheduler, both in this storage.
    public func hostOptions(config: HostConfig?, clock: any ParleyClock, logger: BotLogger) throws -> BotHostOptions {
        let service = try broadcastService(config: config, clock: clock, log: { logger.log(.info, at: clock.now(), bot: nil, $0, [:]) })
        return BotHostOptions(maxMessageBytes: config?.maxMessageBytes ?? HostConfig.defaultMaxMessageBytes,
                              broadcasts: service, schedules: try SchedulerStore(path: path))
    }

    /// The host-wide cap of `broadcasts: rate:`, if set.
    static func globalLimit(_ config: HostConfig?) throws(BroadcastError) -> RateLimiter? {
        guard let rate = config?.broadcasts?.rate else { return nil }
        guard let parsed = try? Rate(parsing: rate.value) else {
            throw BroadcastError(.invalidMessage, "invalid broadcasts rate '\(rate.value)': \(Rate.expected)")
        }
        return RateLimiter(rate: BroadcastConfiguration.bucketRate(perSecond: parsed.perSecond))
    }
}
