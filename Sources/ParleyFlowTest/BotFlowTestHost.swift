import Foundation
import ParleyBots
import ParleyCore
import Synchronization

/// Runs the real bot engine (`BotHost`) for flow tests: one host per test with fresh
/// in-memory state, the bot compiled once per definition and shared by every test.
public final class BotFlowTestHost: FlowTestBotHost {
    private let compiled = Mutex<[String: CompiledBot]>([:])

    /// Creates the host adapter.
    public init() {}

    public func start(_ environment: FlowTestEnvironment) async throws -> any FlowTestBotSession {
        let bot = try compile(environment.bot)
        // Warnings and errors of the engine belong in the transcript: they explain failures.
        let logger = BotLogger(level: .warn, sink: environment.log)
        // As `parley run` does: broadcasts are stored jobs and schedules run on the host clock,
        // here in memory and on the test's virtual clock. Jobs wait on their own time (see
        // `JobLocalClock`); the jitter is fixed, so runs repeat.
        // A bot that never says `broadcast` has no broadcast schedules or actions, and the two
        // stores would only cost time (a third of a short test).
        var options = BotHostOptions()
        if environment.bot.source.text.contains("broadcast") {
            options.broadcasts = BroadcastService(store: try BroadcastStore(path: ":memory:"), clock: JobLocalClock(base: environment.clock),
                                                  configuration: BroadcastConfiguration(random: { 0.5 }))
            options.schedules = try SchedulerStore(path: ":memory:")
        }
        let host = BotHost(store: MemoryBotStore(), clock: environment.clock, logger: logger, options: options)
        try host.add(bot, connection: BotConnection(transport: environment.transport,
                                                    deliveredEventCount: environment.deliveredEventCount))
        let started = await host.start()
        guard started.contains(bot.id) else {
            throw BotError("the bot '\(bot.id)' did not start (see the log lines in the transcript)")
        }
        return Session(host: host)
    }

    private func compile(_ loaded: LoadedBot) throws -> CompiledBot {
        if let bot = compiled.withLock({ $0[loaded.file + "\u{0}" + loaded.id] }) { return bot }
        let bot = try CompiledBot(id: loaded.id, definition: loaded.definition, file: loaded.file)
        compiled.withLock { $0[loaded.file + "\u{0}" + loaded.id] = bot }
        return bot
    }

    private struct Session: FlowTestBotSession {
        let host: BotHost
        func waitUntilIdle() async throws { await host.waitUntilIdle() }
        func stop() async { await host.stop() }
        func nextDeadline() async -> Date? { await host.nextDeadline() }
    }
}
