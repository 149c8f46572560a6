import ParleyBots
import ParleyHosting

/// Loading for commands that run bots: the same checks and messages as `parley check`.
enum HostLoading {
    /// Loads and checks `configFile`; prints its errors as `parley check` does and returns
    /// nil when there were any.
    static func load(configFile: String, context: CommandContext) -> LoadedHost? {
        let loaded = HostLoader.load(configFile: configFile, resolve: context.resolve, environment: context.environment)
        guard loaded.errors.isEmpty else {
            CheckCommand.printErrors(loaded.errors, context: context)
            return nil
        }
        return loaded
    }

    /// The logger of `config`, writing to standard error.
    static func logger(_ loaded: LoadedHost, output: any OutputSink) -> BotLogger {
        HostLogging.logger(for: loaded.config, sink: { _, line in output.write(line + "\n", to: .standardError) })
    }
}
