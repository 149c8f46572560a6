import Foundation
import ParleyCore

/// A recipient a job gave up on, as `parley broadcasts --failed` and the admin API list it:
/// the error's code (`notFound`, `permissionDenied`, `serverError`, …) and its message.
public struct BroadcastFailure: Sendable, Hashable {
    public var position: Int
    public var channel: Channel
    /// The transport error's code.
    public var code: String
    /// The rest of the stored reason (`no such user`; `after 6 attempts: …` for a transient
    /// error given up on).
    public var message: String
    public var attempts: Int
    /// The recipient's own payload when the job has one per recipient (a retry sends it again).
    public var payload: JSONValue?

    /// Splits a stored reason: the runner writes it as `CODE: message`, `CODE after N attempts:
    /// message` or `CODE for PATIENCE: message` (see `BroadcastRunner.deliver`), and a code
    /// has no spaces or colons.
    public init(position: Int, channel: Channel, reason: String, attempts: Int, payload: JSONValue? = nil) {
        self.position = position
        self.channel = channel
        self.attempts = attempts
        self.payload = payload
        let end = reason.firstIndex { $0 == ":" || $0 == " " } ?? reason.endIndex
        code = String(reason[..<end])
        var rest = reason[end...]
        if rest.hasPrefix(":") { rest = rest.dropFirst() }
        message = rest.trimmingCharacters(in: .whitespaces)
    }
}
