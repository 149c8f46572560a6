import Foundation
import ParleyBots

/// `parley run`: loads and checks everything, starts every bot on the configured transport,
/// logs, and runs until SIGINT or SIGTERM (or, at a terminal on the embedded hub, until the
/// chat console is left).
enum RunCommand: Subcommand {
    static let name = "run"
    static let abstract = "Run the bots of a config until interrupted."
    static let positionalUsage = ""
    static let options: [OptionSpec] = [
        .config,
    ]

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws(UsageError) -> Int32 {
        if let extra = arguments.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        let configFile = try arguments.configFile()
        guard let catalog = await HostLoading.load(configFile: configFile, context: context) else { return 1 }
        let config = catalog.config
        let logger = EmbeddedHost.logger(for: config, output: context.output)
        if let config, config.transportKind == .matrix {
            return await runOnMatrix(catalog: catalog, config: config, configFile: configFile, logger: logger, context: context)
        }
        let storage = config?.storagePath ?? ".parley/parley.db"
        let embedded: EmbeddedHost
        do {
            embedded = try EmbeddedHost(catalog: catalog, storagePath: storage == ":memory:" ? storage : context.resolve(storage),
                                        logger: logger, extraUsers: ["you"])
        } catch {
            context.output.errorLine("error: \(error)")
            return 1
        }
        // Handlers first: a signal that comes once the host is up must find them in place.
        let signals = SignalWaiter()
        let started = await embedded.host.start()
        logger.log(.info, at: embedded.host.clock.now(), bot: nil, "host started",
                   ["bots": String(started.count), "transport": "local", "storage": storage])
        if context.input.isTerminal, let first = embedded.bots.first {
            // The console ends the run like a signal does. It is not awaited: a read blocked
            // on the terminal cannot be cancelled, and must not hold up a shutdown.
            let consoleContext = context
            Task {
                var console = ChatConsole(embedded: embedded, user: "you", bot: first, context: consoleContext)
                _ = await console.run()
                signals.cancel()
            }
        }
        await signals.wait()
        logger.log(.info, at: embedded.host.clock.now(), bot: nil, "shutting down")
        await embedded.shutdown()
        return 0
    }
}
