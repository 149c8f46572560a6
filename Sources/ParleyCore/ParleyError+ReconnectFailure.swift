import Foundation

/// A failed attempt of a `ChatClient`'s reconnect loop, carried by the `.error` event that
/// reports it (`ParleyError.reconnectFailure`).
public struct ReconnectFailure: Sendable, Hashable {
    /// Which attempt failed: 1 for the first one after the drop.
    public var attempt: Int
    /// The wait before the next attempt; nil when this was the last one (the client gave up).
    public var retryIn: Duration?

    public init(attempt: Int, retryIn: Duration?) {
        self.attempt = attempt
        self.retryIn = retryIn
    }

    /// The wait as people read it ("1.0s"); nil after the last attempt.
    public var retryInText: String? { retryIn.map { String(format: "%.1fs", $0.timeInterval) } }

    /// What the error's context shows of it.
    var context: [String: String] {
        var context = ["attempt": String(attempt)]
        if let retryInText { context["retry_in"] = retryInText }
        return context
    }
}
