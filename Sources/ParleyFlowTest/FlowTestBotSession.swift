import Foundation

/// One running bot for one test.
public protocol FlowTestBotSession: Sendable {
    /// Returns once the bot has no work in flight and nothing due at the clock's now: every
    /// message delivered to it is handled and every output has reached the transport.
    func waitUntilIdle() async throws
    /// Stops the bot; it sends nothing afterwards.
    func stop() async
    /// The earliest deadline the bot keeps (a flow timeout, a `wait`, a schedule), if it
    /// knows; the runner moves the clock there next.
    func nextDeadline() async -> Date?
}

extension FlowTestBotSession {
    /// Unknown: the runner relies on what sleeps on the clock.
    public func nextDeadline() async -> Date? { nil }
}
