import Foundation
import ParleyBots
import ParleyHosting

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
        guard let loaded = HostLoading.load(configFile: configFile, context: context) else { return 1 }
        // At a terminal on the embedded hub the console owns the screen: log lines go to a file
        // beside the state, warnings and errors are shown too.
        let console = context.input.isTerminal && loaded.config?.transportKind ?? TransportConfig.defaultKind == LocalTransportProvider.kind
        var logFile: LogFile?
        if console, let file = HostStorage(config: loaded.config, resolve: context.resolve).logFile {
            logFile = try? LogFile(path: file.path, shownPath: file.shownPath)
        }
        let output = context.output
        let logger = HostLogging.logger(for: loaded.config) { [logFile] severity, line in
            guard let logFile else { return output.write(line + "\n", to: .standardError) }
            logFile.append(line)
            if severity >= .warn { output.write(line + "\n", to: .standardError) }
        }
        if let logFile { output.errorLine("log lines go to \(logFile.shownPath) (warnings and errors show here too)") }
        let running: RunningHost
        do {
            var options = RunningHost.Options(resolve: context.resolve, logger: logger, extraUsers: console ? [ChatConsole.defaultUser] : [])
            // A reload loads and checks everything as `parley check` does.
            options.reloadSource = { [resolve = context.resolve, environment = context.environment] in
                HostLoader.load(configFile: configFile, resolve: resolve, environment: environment)
            }
            running = try await RunningHost.make(loaded, options: options)
        } catch {
            output.errorLine("error: \(error.description)")
            return 1
        }
        // Before the bots start: an address that is taken stops the run before anyone is answered
        // (a supervisor sees the failure), and `/healthz` tells "connecting" while they connect.
        let listener: OperationsListener?
        do {
            listener = try OperationsListener.start(running, http: loaded.config?.http)
        } catch {
            output.errorLine("error: \(error.description)")
            await running.shutdown()
            return 1
        }
        if let listener { logger.log(.info, at: running.host.clock.now(), bot: nil, "listening", ["url": listener.url]) }
        // Handlers first: a signal that comes once the host is up must find them in place.
        let signals = SignalWaiter()
        let hangups = HangupReloader(running)
        let started = await running.start()
        let systemd = SystemdNotifier(environment: context.environment)
        // READY even when some bots did not start: the host runs; which did not is in the log and /healthz.
        systemd.ready(status: started.count == running.bots.count ? "\(started.count) bots running"
                                                                   : "\(started.count) of \(running.bots.count) bots running")
        let watchdog = Task { await systemd.feedWatchdog() }
        if console, let first = ChatConsole.firstBot(running.bots),
           var console = ChatConsole(running: running, user: ChatConsole.defaultUser, bot: first, context: context) {
            // The console ends the run like a signal does. It is not awaited: a read blocked
            // on the terminal cannot be cancelled, and must not hold up a shutdown.
            Task {
                _ = await console.run()
                signals.cancel()
            }
        }
        await signals.wait()
        logger.log(.info, at: running.host.clock.now(), bot: nil, "shutting down")
        systemd.stopping()
        hangups.stop()
        watchdog.cancel()
        listener?.stop()
        await running.shutdown()
        logFile?.close()
        return 0
    }
}
