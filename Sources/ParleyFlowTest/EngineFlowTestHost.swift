import ParleyBots
import ParleyCore
import Synchronization

/// Runs the real bot engine (`BotHost`) for flow tests: one host per test with fresh
/// in-memory state, the bot compiled once per definition and shared by every test.
public final class EngineFlowTestHost: FlowTestBotHost {
    private let compiled = Mutex<[String: CompiledBot]>([:])

    /// Creates the host adapter.
    public init() {}

    public func start(_ environment: FlowTestEnvironment) async throws -> any FlowTestBotSession {
        let bot = try compile(environment.bot)
        // Warnings and errors of the engine belong in the transcript: they explain failures.
        let logger = EngineLogger(level: .warn, sink: environment.log)
        let host = BotHost(store: MemoryEngineStore(), clock: environment.clock, logger: logger)
        try host.add(bot, connection: BotConnection(transport: environment.transport,
                                                    deliveredEventCount: environment.deliveredEventCount))
        let started = await host.start()
        guard started.contains(bot.id) else {
            throw EngineError("the bot '\(bot.id)' did not start (see the log lines in the transcript)")
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
    }
}
