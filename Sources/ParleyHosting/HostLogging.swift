import ParleyBots

/// The logger a config asks for (`log.level`, `log.format`).
public enum HostLogging {
    /// A logger at the config's level and format, handing each line and its severity to `sink`.
    public static func logger(for config: HostConfig?, sink: @escaping @Sendable (LogLevel, String) -> Void) -> BotLogger {
        let level = config?.log?.level.flatMap { LogLevel(name: $0.value) } ?? .info
        let format: BotLogger.Format = config?.log?.format?.value == "json" ? .json : .text
        return BotLogger(level: level, format: format, severitySink: sink)
    }
}
