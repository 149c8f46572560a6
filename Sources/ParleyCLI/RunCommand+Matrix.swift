import Foundation
import ParleyBots
import ParleyCore

extension RunCommand {
    /// `parley run` with `transport: {kind: matrix}`: every bot logs in with its account
    /// (whoami first: a bad token or an unreachable server is a clear error and exit 1), the
    /// host keeps bot state, schedules and broadcast jobs in `storage.path`, and runs until
    /// SIGINT or SIGTERM.
    static func runOnMatrix(catalog: HostCatalog, config: HostConfig, configFile: String, logger: EngineLogger,
                            context: CommandContext) async -> Int32 {
        let clock = SystemClock()
        let storage = config.storagePath
        let storagePath = storage == ":memory:" ? storage : context.resolve(storage)
        let host: BotHost
        let accounts: MatrixBotAccounts
        var compiled: [String: CompiledBot] = [:]
        do {
            for loaded in catalog.bots {
                compiled[loaded.id] = try CompiledBot(id: loaded.id, definition: loaded.definition, file: loaded.file)
            }
            accounts = try MatrixBotAccounts(config: config, bots: catalog.bots, storagePath: storagePath,
                                             log: { logger.log(.info, at: clock.now(), bot: nil, $0, [:]) })
            let store: any EngineStore = storagePath == ":memory:" ? MemoryEngineStore() : try SQLiteEngineStore(path: storagePath)
            host = BotHost(store: store, clock: clock, logger: logger,
                           options: try BroadcastsCommand.hostOptions(config: config, storagePath: storagePath, clock: clock, logger: logger))
        } catch {
            context.output.errorLine("error: \(configFile): \(error)")
            return 1
        }
        let problems = await accounts.prepare()
        for (_, problem) in problems {
            context.output.errorLine("error: \(configFile): \(problem)")
        }
        if !problems.isEmpty { return 1 }
        do {
            for bot in accounts.bots {
                guard let definition = compiled[bot.id] else { continue }
                try host.add(definition, connection: bot.connection)
            }
        } catch {
            context.output.errorLine("error: \(configFile): \(error)")
            return 1
        }
        let signals = SignalWaiter()
        let started = await host.start()
        logger.log(.info, at: clock.now(), bot: nil, "host started",
                   ["bots": String(started.count), "transport": "matrix", "homeserver": accounts.homeserver.absoluteString])
        await signals.wait()
        logger.log(.info, at: clock.now(), bot: nil, "shutting down")
        await host.stop()
        return 0
    }
}
