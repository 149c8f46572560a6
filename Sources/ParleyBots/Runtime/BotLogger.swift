import Foundation
import ParleyCore

/// Severity of a log line.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable, Codable {
    case debug, info, warn, error

    /// Parses `debug`, `info`, `warn` or `error`.
    public init?(name: String) {
        guard let level = LogLevel.allCases.first(where: { $0.name == name }) else { return nil }
        self = level
    }

    /// The level's name as written in config and logs.
    public var name: String {
        switch self {
        case .debug: return "debug"
        case .info: return "info"
        case .warn: return "warn"
        case .error: return "error"
        }
    }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Structured log lines of the bot host: one line per event, as `text`
/// (`2026-12-01T09:00:00Z info support message channel=user:alice`) or `json`.
public struct BotLogger: Sendable {
    /// Output formats.
    public enum Format: Sendable { case text, json }

    /// Lines below this level are dropped.
    public var level: LogLevel
    /// `text` or `json`.
    public var format: Format
    /// Receives each finished line (without the newline) with its severity.
    public var sink: @Sendable (LogLevel, String) -> Void

    /// A logger writing lines at `level` and above to `sink`.
    public init(level: LogLevel = .info, format: Format = .text, sink: @escaping @Sendable (String) -> Void) {
        self.init(level: level, format: format, severitySink: { _, line in sink(line) })
    }

    /// A logger handing lines at `level` and above, with their severity, to `severitySink`
    /// (which may send them to different places: a file, and the terminal for warnings).
    public init(level: LogLevel = .info, format: Format = .text, severitySink: @escaping @Sendable (LogLevel, String) -> Void) {
        self.level = level
        self.format = format
        sink = severitySink
    }

    /// A logger that drops everything.
    public static let silent = BotLogger(level: .error, sink: { _ in })

    /// Writes one event line if `severity` is at or above the level.
    public func log(_ severity: LogLevel, at time: Date, bot: String?, _ event: String, _ fields: [String: String] = [:]) {
        guard severity >= level else { return }
        let stamp = Self.timestamp(time)
        switch format {
        case .text:
            var line = "\(stamp) \(severity.name)"
            if let bot { line += " \(bot)" }
            line += " " + event
            for key in fields.keys.sorted() { line += " \(key)=\(Self.quoteIfNeeded(fields[key] ?? ""))" }
            sink(severity, line)
        case .json:
            var object: [String: String] = fields
            object["time"] = stamp
            object["level"] = severity.name
            object["event"] = event
            if let bot { object["bot"] = bot }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            sink(severity, String(decoding: data, as: UTF8.self))
        }
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    /// Values with spaces, quotes or control characters are quoted and escaped, and long
    /// ones shortened, so one event stays one line.
    static func quoteIfNeeded(_ value: String) -> String {
        let short = value.count > 200 ? String(value.prefix(200)) + "…" : value
        guard short.isEmpty || short.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" || $0.isNewline || $0.asciiValue.map { $0 < 32 } == true }) else {
            return short
        }
        // JSON string escaping: one line whatever the value holds, and readable by any tool.
        return JSONValue.string(short).compactJSON()
    }
}
