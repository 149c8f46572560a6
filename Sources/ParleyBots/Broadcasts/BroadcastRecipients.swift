import Foundation
import ParleyCore

/// The audience of a broadcast: `to` targets and the lines of a `to_file`, in order, each
/// target once (a recipient listed twice still gets one message).
public struct BroadcastRecipients: Sendable, Hashable {
    /// The targets, first occurrence order, no duplicates.
    public private(set) var channels: [Channel] = []
    private var seen: Set<Channel> = []

    /// An empty audience.
    public init() {}

    /// Adds `channel` unless it is already there; true when added.
    @discardableResult
    public mutating func append(_ channel: Channel) -> Bool {
        guard seen.insert(channel).inserted else { return false }
        channels.append(channel)
        return true
    }

    /// Adds targets written as `user:ID` / `group:ID`; `source` names them in errors.
    public mutating func append(targets: [String], source: String? = nil) throws(BroadcastError) {
        for (index, target) in targets.enumerated() {
            let channel = try Self.parse(target, file: source, line: source == nil ? nil : index + 1)
            append(channel)
        }
    }

    /// Adds every target of a recipients file: one target a line, blank lines and lines
    /// starting with `#` skipped. `path` is read; `displayPath` is what errors show.
    public mutating func append(file path: String, displayPath: String) throws(BroadcastError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BroadcastError(.invalidRecipients, "cannot read the recipients file (missing or not readable)", file: displayPath)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw BroadcastError(.invalidRecipients, "the recipients file is not UTF-8 text", file: displayPath)
        }
        // The same reading `parley check` does (RecipientFile), so both agree on every line.
        switch RecipientFile.parse(text, file: displayPath) {
        case .success(let channels):
            for channel in channels { append(channel) }
        case .failure(let errors):
            let first = errors.errors.first
            throw BroadcastError(.invalidRecipients, first?.message ?? "invalid recipients file", file: displayPath, line: first?.mark.line)
        }
    }

    /// Parses one target; the error names `file` and `line` when given.
    public static func parse(_ text: String, file: String? = nil, line: Int? = nil) throws(BroadcastError) -> Channel {
        let expected = "expected user:ID or group:ID"
        guard let channel = Channel(target: text), channel.kind != .local else {
            throw BroadcastError(.invalidRecipients, "invalid target '\(text)': \(expected)", file: file, line: line)
        }
        guard !channel.id.contains(where: { $0.isWhitespace }) else {
            throw BroadcastError(.invalidRecipients, "invalid target '\(text)': an id has no spaces; \(expected), one a line",
                                 file: file, line: line)
        }
        return channel
    }
}
