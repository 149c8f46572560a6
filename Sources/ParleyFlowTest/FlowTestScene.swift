import ParleyCore
import ParleyHub

/// One test's world, as a stage set it up.
public struct FlowTestScene: Sendable {
    /// The bot's connection (the runner records its sends).
    public var botTransport: any Transport
    /// The test user's connection; it sends to `.person(botID)` and the test's groups.
    public var user: any Transport
    /// Events the server has handed the bot's connection so far (what makes idle exact).
    public var deliveredEventCount: @Sendable () -> Int
    /// The embedded hub, when the stage is one.
    public var hub: Hub?
    /// For a bot the stage does not host: returns once the bot seems done (nothing new for a
    /// while); a bot host without an idle signal of its own waits with it.
    public var settle: (@Sendable () async throws -> Void)?
    /// Tears the world down after the test.
    public var close: @Sendable () async -> Void

    /// A scene.
    public init(botTransport: any Transport, user: any Transport, deliveredEventCount: @escaping @Sendable () -> Int,
                hub: Hub? = nil, settle: (@Sendable () async throws -> Void)? = nil,
                close: @escaping @Sendable () async -> Void = {}) {
        self.botTransport = botTransport
        self.user = user
        self.deliveredEventCount = deliveredEventCount
        self.hub = hub
        self.settle = settle
        self.close = close
    }
}
