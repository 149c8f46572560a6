/// One running bot for one test.
public protocol FlowTestBotSession: Sendable {
    /// Returns once the bot has no work in flight and nothing due at the clock's now: every
    /// message delivered to it is handled and every output has reached the transport.
    func waitUntilIdle() async throws
    /// Stops the bot; it sends nothing afterwards.
    func stop() async
}
