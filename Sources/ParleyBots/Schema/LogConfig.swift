import YAMLCoding

/// `log:`.
public struct LogConfig: Decodable, Sendable {
    /// Log levels.
    public enum Level: String, Sendable, CaseIterable { case debug, info, warn, error }
    /// Output formats.
    public enum Format: String, Sendable, CaseIterable { case text, json }
    /// `debug`, `info` (default), `warn` or `error`.
    public var level: Located<String>?
    /// `text` (default) or `json`.
    public var format: Located<String>?
}
