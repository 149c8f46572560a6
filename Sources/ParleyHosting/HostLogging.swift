import ParleyBots

/// The logger a config asks for (`log.level`, `log.format`).
public enum HostLogging {
    /// A logger at the config's level and format, handing each line and its severity to `sink`.
    public static func logger(for config: HostConfig?, sink: @escaping @Sendable (LogLevel, String) -> Void) -> EngineLogger {
        let level = config?.log?.level.flatMap { LogLevel(name: $0.value) } ?? .info
        let format: EngineLogger.Format = config?.log?.format?.value == "json" ? .json : .text
        return EngineLogger(level: level, format: format, severitySink: sink)
    }
}
