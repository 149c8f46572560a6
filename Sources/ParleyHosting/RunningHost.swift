import Foundation
import ParleyBots
import ParleyCore
import ParleyHub
import Synchronization

/// The bots of a loaded config, composed and connected on the config's transport: the state
/// store, durable broadcasts and schedules, profiles, each bot's client storage and
/// connection. What `parley run` and `parley chat` start; the only place a host is put
/// together.
///
///     let host = try await RunningHost.make(loaded, options: .init(resolve: context.resolve, logger: logger))
///     await host.start()
///     …
///     await host.shutdown()
public final class RunningHost: Sendable {
    /// How a run differs from the config.
    public struct Options: Sendable {
        /// Maps a path as written to the file system.
        public var resolve: @Sendable (String) -> String
        /// Where the host logs.
        public var logger: BotLogger
        /// The host clock.
        public var clock: any ParleyClock
        /// Replaces `storage.path` (`":memory:"`: `parley chat` keeps nothing).
        public var storagePath: String?
        /// Users that exist besides the bots (the console's, on the embedded hub).
        public var extraUsers: [String]
        /// Wraps each bot's transport (`parley chat --record`).
        public var wrapTransport: (@Sendable (_ botID: String, _ transport: any Transport) -> any Transport)?
        /// What the process is, for the lock file (`parley run`).
        public var holder = "parley run"
        /// Loads the config again for `reload()` (SIGHUP, `POST /api/v1/reload`); nil: the
        /// host cannot reload.
        public var reloadSource: (@Sendable () -> LoadedHost)?

        /// Options for a run of the config as written.
        public init(resolve: @escaping @Sendable (String) -> String, logger: BotLogger, clock: any ParleyClock = SystemClock(),
                    storagePath: String? = nil, extraUsers: [String] = [],
                    wrapTransport: (@Sendable (_ botID: String, _ transport: any Transport) -> any Transport)? = nil) {
            self.resolve = resolve
            self.logger = logger
            self.clock = clock
            self.storagePath = storagePath
            self.extraUsers = extraUsers
            self.wrapTransport = wrapTransport
        }
    }

    /// The engine running the bots.
    public let host: BotHost
    /// The bots that compiled, in file order (a bot that does not compile is logged and left
    /// out), as last loaded: a reload changes them.
    public var bots: [CompiledBot] { loaded.withLock { $0.bots } }
    /// Decodes every card of every bot.
    public var registry: ContentRegistry { loaded.withLock { $0.registry } }
    /// The hand-off queues of the bots, sorted.
    public var queues: [String] { loaded.withLock { $0.queues } }
    /// Each Matrix bot's sync loop, for `/healthz` and `/metrics`.
    public var syncWatches: [String: SyncWatch] { sessions.syncWatches }
    /// The embedded hub, when the transport is one.
    public let hub: Hub?
    /// The transport kind.
    public let kind: String
    /// Where state is kept.
    public let storage: HostStorage
    /// What the bots run from, as last loaded (`RunningHost+Reload`).
    let loaded: Mutex<LoadedState>
    /// The transport sessions: the first run's, and one per reload that added bots.
    let sessions: HostSessions
    /// How the bots were connected: a reload connects its new bots the same way.
    let transportRun: TransportRun
    /// Reloads one at a time (SIGHUP and the API may ask at once).
    let reloads = ReloadQueue()
    /// What `reload()` loads: the config as the process was started with it.
    let source: (@Sendable () -> LoadedHost)?
    /// The store is this process's while it runs.
    private let lock: StoreLock?
    /// `storage.retention` (nil: `forever`), and its periodic clean-up once started.
    public let retention: StoreRetention?
    private let cleanup = Mutex<Task<Void, Never>?>(nil)
    /// What the bots did and hold, for `/metrics`, and their health for `/healthz`.
    public let metrics: HostMetrics
    /// Wakes whoever shows the host live (the agents' console) when the bots did something.
    public let changes: HostChangeSignal
    /// On a shared PostgreSQL database: this process's leases on the bots (nil on SQLite).
    let keeper: LeaseKeeper?
    /// The transport the host was started with: bots taken over connect through it.
    let provider: any TransportProvider
    /// On a shared database: the accounts this process helps send other processes' broadcasts through.
    let helpers: BroadcastHelpers?

    private init(host: BotHost, loaded: LoadedState, sessions: HostSessions, kind: String, storage: HostStorage, transportRun: TransportRun,
                 lock: StoreLock?, retention: StoreRetention?, metrics: HostMetrics, changes: HostChangeSignal,
                 source: (@Sendable () -> LoadedHost)?, keeper: LeaseKeeper?, provider: any TransportProvider,
                 helpers: BroadcastHelpers?) {
        self.keeper = keeper
        self.helpers = helpers
        self.provider = provider
        self.metrics = metrics
        self.changes = changes
        self.lock = lock
        self.retention = retention
        self.host = host
        hub = sessions.all.first?.hub
        self.sessions = sessions
        self.loaded = Mutex(loaded)
        self.kind = kind
        self.storage = storage
        self.transportRun = transportRun
        self.source = source
    }

    /// Composes and connects the host of `loaded` (which must have no errors).
    /// - Throws: `HostError` naming what failed: the storage, a bot's login, a room.
    public static func make(_ loaded: LoadedHost, options: Options) async throws(HostError) -> RunningHost {
        guard loaded.errors.isEmpty, let transport = loaded.transport else {
            throw HostError("\(loaded.catalog.configFile) has errors; see 'parley check'")
        }
        let config = loaded.config
        let logger = options.logger, clock = options.clock
        var compiled: [CompiledBot] = []
        for bot in loaded.catalog.bots {
            do {
                compiled.append(try CompiledBot(id: bot.id, definition: bot.definition, file: bot.file))
            } catch {
                logger.log(.error, at: clock.now(), bot: bot.id, "bot not started", ["error": error.message])
            }
        }
        let storage = HostStorage(config: config, resolve: options.resolve, override: options.storagePath)
        // Before anything is opened: a second process on the store is refused, not merged in.
        let lock = try storage.lock(holder: options.holder)
        let host: BotHost
        let profiles: HostProfiles
        let metrics = HostMetrics()
        let changes = HostChangeSignal()
        do {
            var hostOptions = try storage.hostOptions(config: config, clock: clock, logger: logger)
            hostOptions.activity = SignallingActivityObserver(inner: metrics, signal: changes)
            host = BotHost(store: try storage.botStore(), clock: clock, logger: logger, options: hostOptions)
            profiles = try HostProfiles(catalog: loaded.catalog)
        } catch {
            throw HostError("cannot open the storage at \(storage.shownPath): \(error)")
        }
        let sessions = HostSessions()
        let run = TransportRun(bots: compiled, storage: storage, profiles: profiles, extraUsers: options.extraUsers,
                               clock: clock, logger: logger, wrapTransport: options.wrapTransport)
        // On a shared database this process connects only the bots whose leases it takes now;
        // the others are taken over when their holder stops renewing.
        let keeper = try Self.keeper(storage: storage, config: config, bots: compiled.map(\.id), logger: logger, clock: clock)
        var firstRun = run
        if let keeper {
            let taken = keeper.takeFree()
            firstRun.bots = compiled.filter { taken[$0.id] != nil }
            logger.log(.info, at: clock.now(), bot: nil, "cluster: joined", ["process": keeper.processID,
                       "bots": firstRun.bots.map(\.id).joined(separator: ","), "lease": "\(config?.lease ?? StorageConfig.defaultLease)"])
        }
        // Renewed from now on: connecting and starting the bots can outlast the lease.
        keeper?.startRenewing()
        let session: TransportSession
        do {
            session = try await Self.connectFirst(firstRun, through: transport, into: host, sessions: sessions, configFile: loaded.catalog.configFile)
        } catch {
            await keeper?.stop(releasing: true)
            throw error
        }
        var retention: StoreRetention?
        // No config file keeps the default too.
        if let kept = config.map(\.retention) ?? StorageConfig.defaultRetention {
            var stores: [StoreRetention.Store] = [("engine", { [store = host.store] in try store.prune(before: $0) })]
            if let broadcasts = host.options.broadcasts { stores.append(("broadcasts", { try broadcasts.store.prune(before: $0) })) }
            // The transport's own records (Matrix's seen events), of the bots a reload added too.
            if session.prune != nil { stores.append((type(of: transport).kind, { try await sessions.prune(before: $0) })) }
            retention = StoreRetention(retention: kept, stores: stores)
        }
        let running = RunningHost(host: host, loaded: LoadedState(loaded, bots: compiled), sessions: sessions,
                                  kind: type(of: transport).kind, storage: storage, transportRun: run,
                                  lock: lock, retention: retention, metrics: metrics, changes: changes,
                                  source: options.reloadSource, keeper: keeper, provider: transport,
                                  helpers: keeper == nil ? nil : BroadcastHelpers(provider: transport, storage: storage) { bot, problem in
                                      logger.log(.warn, at: clock.now(), bot: bot, "cluster: cannot help send the bot's broadcasts", ["error": problem])
                                  })
        metrics.attach(running)
        return running
    }

    /// Connects the bots of `run` (those whose leases were taken, on a shared database) and adds
    /// each connected one to `host`.
    private static func connectFirst(_ run: TransportRun, through transport: any TransportProvider, into host: BotHost,
                                sessions: HostSessions, configFile: String) async throws(HostError) -> TransportSession {
        let session: TransportSession
        do {
            session = try await transport.connect(run)
            sessions.add(session)
        } catch let error as HostError {
            throw error
        } catch {
            throw HostError("\(configFile): \(error)")
        }
        for bot in run.bots {
            guard let connection = session.connections[bot.id] else { continue }
            do { try host.add(bot, connection: connection) } catch {
                throw HostError("bot '\(bot.id)' cannot be added: \(error)")
            }
        }
        return session
    }

    /// Starts every bot, logs "host started" and returns the ids of those that started.
    @discardableResult
    public func start() async -> [String] {
        let started = await host.start()
        var fields = sessions.all.first?.summary ?? [:]
        fields["bots"] = String(started.count)
        fields["transport"] = kind
        fields["storage"] = storage.shownPath
        host.logger.log(.info, at: host.clock.now(), bot: nil, "host started", fields)
        if let retention {
            let clock = host.clock, logger = host.logger
            cleanup.withLock { $0 = Task { await retention.run(clock: clock, logger: logger) } }
        }
        startKeepingLeases()
        return started
    }

    /// Stops the bots (work in flight gets its grace), then releases the transport and the store.
    /// On a shared database, the leases are given up once the bots have stopped, so another
    /// process takes them over at once rather than after the lease.
    public func shutdown() async {
        if let task = cleanup.withLock({ $0 }) {
            task.cancel()
            await task.value
        }
        await keeper?.stop(releasing: false)
        await host.stop()
        for session in sessions.all { await session.close() }
        await helpers?.close()
        await keeper?.stop(releasing: true)
        lock?.release()
    }
}

/// Why a host could not be composed or connected: a message ready to print.
public struct HostError: Error, Sendable, CustomStringConvertible {
    /// The message.
    public var description: String

    /// An error with `description`.
    public init(_ description: String) { self.description = description }
}
