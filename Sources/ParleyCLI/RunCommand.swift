import Foundation
import ParleyBots
import ParleyHosting

/// `parley run`: loads and checks everything, then runs the host as a `HostProcess` (every bot
/// on the configured transport, the listener, signals, systemd) until SIGINT or SIGTERM (or,
/// at a terminal on the embedded hub, until the chat console is left).
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
        let process: HostProcess
        do {
            var options = RunningHost.Options(resolve: context.resolve, logger: logger, extraUsers: console ? [ChatConsole.defaultUser] : [])
            // A reload loads and checks everything as `parley check` does.
            options.reloadSource = { [resolve = context.resolve, environment = context.environment] in
                HostLoader.load(configFile: configFile, resolve: resolve, environment: environment)
            }
            process = try await HostProcess.make(loaded, options: options, environment: context.environment)
        } catch {
            output.errorLine("error: \(error.description)")
            return 1
        }
        await process.start()
        let running = process.running
        if console, let first = ChatConsole.firstBot(running.bots),
           var console = ChatConsole(running: running, user: ChatConsole.defaultUser, bot: first, context: context) {
            // The console ends the run like a signal does. It is not awaited: a read blocked
            // on the terminal cannot be cancelled, and must not hold up a shutdown.
            Task {
                _ = await console.run()
                process.end()
            }
        }
        await process.runUntilEnded()
        logFile?.close()
        return 0
    }
}
