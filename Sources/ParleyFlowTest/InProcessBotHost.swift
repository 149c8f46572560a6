import Foundation
import ParleyBots
import ParleyCore
import Synchronization

/// Runs the real bot engine (`BotHost`) in this process for flow tests: one host per test with
/// fresh state, the bot compiled once per definition and shared by every test. State is in
/// memory, except for a test that restarts the bot: its state is in SQLite files, as
/// `parley run` keeps it, so the restarted bot knows only what really was stored.
public final class InProcessBotHost: TestBotHost {
    private let compiled = Mutex<[String: CompiledBot]>([:])

    /// Creates the host adapter.
    public init() {}

    public func start(_ run: TestRun, in stage: any StageSession, transport: any Transport) async throws -> any TestBotSession {
        let bot = try compile(run.bot)
        let storage = TestStorage(for: run)
        do {
            let launch: Session.Launch = { transport in
                try await Self.launch(bot, of: run, storage: storage, connection: BotConnection(
                    transport: transport, deliveredEventCount: { stage.deliveredEventCount }, storage: storage.client))
            }
            return Session(host: try await launch(transport), launch: launch, storage: storage)
        } catch {
            storage.remove()
            throw error
        }
    }

    /// A started host running `bot` on `connection`, with its state in `storage`.
    private static func launch(_ bot: CompiledBot, of run: TestRun, storage: TestStorage,
                               connection: BotConnection) async throws -> BotHost {
        // Warnings and errors of the engine belong in the transcript: they explain failures.
        // `PARLEY_TEST_LOG=debug` adds every routing decision (why a message got no answer).
        let logger = BotLogger(level: logLevel, sink: { line in run.log(line) })
        // As `parley run` does: broadcasts are stored jobs and schedules run on the host clock,
        // here on the test's virtual clock. Jobs wait on their own time (see `JobLocalClock`);
        // the jitter is fixed, so runs repeat.
        // A bot that never says `broadcast` has no broadcast schedules or actions, and the two
        // stores would only cost time.
        var options = BotHostOptions()
        if run.bot.source.text.contains("broadcast") {
            options.broadcasts = BroadcastService(store: try BroadcastStore(path: storage.broadcasts), clock: JobLocalClock(base: run.clock),
                                                  configuration: BroadcastConfiguration(random: { 0.5 }))
            options.schedules = try SchedulerStore(path: storage.schedules)
        }
        let host = BotHost(store: try storage.botStore(), clock: run.clock, logger: logger, options: options)
        try host.add(bot, connection: connection)
        let started = await host.start()
        guard started.contains(bot.id) else {
            await host.stop()
            throw BotError("the bot '\(bot.id)' did not start (see the log lines in the transcript)")
        }
        return host
    }

    /// The engine's log level in transcripts: `warn`, or `PARLEY_TEST_LOG` (debug, info, …).
    private static let logLevel = ProcessInfo.processInfo.environment["PARLEY_TEST_LOG"].flatMap(LogLevel.init(name:)) ?? .warn

    private func compile(_ loaded: LoadedBot) throws -> CompiledBot {
        if let bot = compiled.withLock({ $0[loaded.file + "\u{0}" + loaded.id] }) { return bot }
        let bot = try CompiledBot(id: loaded.id, definition: loaded.definition, file: loaded.file)
        compiled.withLock { $0[loaded.file + "\u{0}" + loaded.id] = bot }
        return bot
    }

    private final class Session: TestBotSession {
        typealias Launch = @Sendable (any Transport) async throws -> BotHost
        /// The running host: a restart replaces it.
        private let host: Mutex<BotHost>
        private let launch: Launch
        private let storage: TestStorage

        init(host: BotHost, launch: @escaping Launch, storage: TestStorage) {
            self.host = Mutex(host)
            self.launch = launch
            self.storage = storage
        }

        private var current: BotHost { host.withLock { $0 } }

        func waitUntilIdle() async throws { await current.waitUntilIdle() }
        func nextDeadline() async -> Date? { await current.nextDeadline() }
        func idleReport() async -> String? { await current.idleReport() }

        func stop() async {
            await current.stop()
            storage.remove()
        }

        func pauseNextBroadcast(schedule: String, afterSends count: Int) async throws {
            try broadcasts().pauseNextRun(origin: "schedule:\(schedule)", afterSends: count)
        }

        func resumeBroadcasts() async throws -> Int {
            let host = current
            let paused = try broadcasts().store.jobs().filter { $0.state == .paused }
            for job in paused { _ = try host.resumeBroadcast(job.id) }
            return paused.count
        }

        private func broadcasts() throws -> BroadcastService {
            guard let service = current.options.broadcasts else {
                throw ParleyError(.invalidArgument, "the bot has no broadcasts")
            }
            return service
        }

        func restart(reconnect: @Sendable () async throws -> any Transport) async throws {
            guard storage.folder != nil else {
                throw ParleyError(.invalidArgument, "the bot keeps its state in memory: a test with `restart` keeps it in files")
            }
            await current.stop()
            let restarted = try await launch(try await reconnect())
            host.withLock { $0 = restarted }
        }
    }
}

/// Where a flow test's bot keeps its state: in memory, or, for a test that restarts the bot,
/// in SQLite files in a folder of its own (removed when the test ends). The stores create the
/// folder when they open their files, owner-only, as for `parley run` (`OwnerOnlyFiles`).
struct TestStorage: Sendable {
    /// The folder of the files; nil: in memory.
    let folder: String?

    init(for run: TestRun) {
        folder = run.test.steps.contains(where: \.isRestart)
            ? FileManager.default.temporaryDirectory.appendingPathComponent("parley-test-\(UUID().uuidString)").path
            : nil
    }

    private func path(_ name: String) -> String { folder.map { $0 + "/" + name } ?? ":memory:" }

    /// The bot engine's store: conversations, inbox, tickets.
    func botStore() throws -> any BotStore {
        guard folder != nil else { return MemoryBotStore() }
        return try DatabaseBotStore(path: path("state.db"))
    }

    /// The bot client's outbox and history.
    var client: ChatStorage { folder.map { .sqlite(path: $0 + "/client.db") } ?? .memory }
    var broadcasts: String { path("broadcasts.db") }
    var schedules: String { path("schedules.db") }

    func remove() {
        if let folder { try? FileManager.default.removeItem(atPath: folder) }
    }
}
