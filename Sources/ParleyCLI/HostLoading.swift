import ParleyBots

/// Loading for commands that run bots: the same checks and messages as `parley check`.
enum HostLoading {
    /// Runs `parley check`'s validation (printing its errors) and returns the catalog, or
    /// nil when there were errors (they are printed already).
    static func load(configFile: String, context: CommandContext) async -> HostCatalog? {
        var arguments = ParsedArguments()
        arguments.values["config"] = configFile
        var quiet = context
        quiet.output = ErrorsOnly(inner: context.output)
        let code: Int32
        do { code = try await CheckCommand.run(arguments, context: quiet) } catch { return nil }
        guard code == 0 else { return nil }
        return HostCatalog.load(configFile: configFile, resolve: context.resolve, environment: context.environment)
    }

    /// Passes standard error through and drops standard output (check's summary line).
    private struct ErrorsOnly: OutputSink {
        let inner: any OutputSink
        func write(_ text: String, to stream: OutputStream) {
            if stream == .standardError { inner.write(text, to: stream) }
        }
    }
}
