import Foundation

/// Synapse's access log (`PARLEY_SYNAPSE_ACCESS_LOG`, one line per finished request naming its
/// user as `{@user:server}`): requests per answer, counted the same way for every bot, and a
/// test's count of one kind of request (`/keys/claim`) made by one user.
public struct SynapseAccessLog: Sendable {
    public let path = ProcessInfo.processInfo.environment["PARLEY_SYNAPSE_ACCESS_LOG"]

    public init() {}

    /// Where the log ends now.
    public func mark() -> UInt64? {
        guard let path, let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
        return (attributes[.size] as? NSNumber)?.uint64Value
    }

    /// Requests by `user` (anyone's, for nil) logged after `mark` (those whose line contains
    /// `matching`, when given).
    public func requests(by user: String?, since mark: UInt64?, matching: String? = nil) -> Int? {
        lines(by: user, since: mark)?.count { matching.map($0.contains) ?? true }
    }

    /// The log lines of `user`'s (anyone's, for nil) requests after `mark` (each ends with the
    /// status, method and path, e.g. `200 "PUT /_matrix/client/v3/sendToDevice/… HTTP/1.1"`).
    public func lines(by user: String?, since mark: UInt64?) -> [Substring]? {
        guard let path, let mark, let file = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? file.close() }
        guard (try? file.seek(toOffset: mark)) != nil, let data = try? file.readToEnd() else { return nil }
        let needle = user.map { " - {\($0)} Processed request" } ?? " Processed request"
        return String(decoding: data, as: UTF8.self).split(separator: "\n").filter { $0.contains(needle) }
    }
}
