import ParleyCore

/// Told what the bots do as they do it: what the host's health and metrics are made of. Calls
/// come from the bots' runtimes and outboxes, synchronously: an implementation counts and
/// returns (an atomic add, a short lock), never waits.
public protocol BotActivityObserver: Sendable {
    /// `bot`'s connection to the server changed.
    func connection(bot: String, _ state: ConnectionState)
    /// `bot` took a message to handle.
    func received(bot: String)
    /// The server accepted a message of `bot`.
    func sent(bot: String)
    /// The first message `bot` sent in answer to a received one was accepted, `latency` after
    /// the received one's server time.
    func answered(bot: String, latency: Duration)
    /// A send of `bot` failed for good (after the outbox's retries).
    func sendFailed(bot: String, _ error: ParleyError)
    /// The server refused a send of `bot` for its rate (the outbox waits and retries).
    func rateLimited(bot: String)
    /// A ticket of `queue` got its first agent answer, `after` it was opened.
    func ticketAnswered(queue: String, after: Duration)
    /// A ticket of `queue` was resolved, `after` it was opened.
    func ticketResolved(queue: String, after: Duration)
}

extension BotActivityObserver {
    /// Not counted by default.
    public func ticketAnswered(queue: String, after: Duration) {}
    /// Not counted by default.
    public func ticketResolved(queue: String, after: Duration) {}
}
