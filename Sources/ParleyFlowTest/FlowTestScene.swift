import ParleyCore
import ParleyHub

/// One test's world, as a stage set it up.
public struct FlowTestScene: Sendable {
    /// The bot's connection (the runner records its sends).
    public var botTransport: any Transport
    /// The test user's connection; it sends to `.person(botID)` and the test's groups.
    public var user: any Transport
    /// Another user's connection (`send: {…, as: USER}`), asked for once per speaker when
    /// they first speak; it sends to `.person(botID)` and the groups the speaker is a member
    /// of (`FlowTestStageRequest.members`). Idle stays exact only if every message sent through
    /// it is counted by `deliveredEventCount` once the server has delivered it to the bot, as
    /// the test user's are. The stage closes these connections in `close`. A stage that cannot
    /// connect other users throws; the error becomes the step's failure.
    public var connect: @Sendable (_ user: String) async throws -> any Transport
    /// Events the server has handed the bot's connection so far (what makes idle exact).
    public var deliveredEventCount: @Sendable () -> Int
    /// The embedded hub, when the stage is one.
    public var hub: Hub?
    /// For a bot the stage does not host: returns once the bot seems done (nothing new for a
    /// while); a bot host without an idle signal of its own waits with it.
    public var settle: (@Sendable () async throws -> Void)?
    /// Tears the world down after the test.
    public var close: @Sendable () async -> Void

    /// A scene. Without `connect`, a test with `as:` fails at its first such step.
    public init(botTransport: any Transport, user: any Transport, deliveredEventCount: @escaping @Sendable () -> Int,
                hub: Hub? = nil, settle: (@Sendable () async throws -> Void)? = nil,
                connect: @escaping @Sendable (_ user: String) async throws -> any Transport = FlowTestScene.cannotConnect,
                close: @escaping @Sendable () async -> Void = {}) {
        self.botTransport = botTransport
        self.user = user
        self.connect = connect
        self.deliveredEventCount = deliveredEventCount
        self.hub = hub
        self.settle = settle
        self.close = close
    }

    /// The `connect` of a stage that only has the test user's connection.
    @Sendable public static func cannotConnect(_ user: String) async throws -> any Transport {
        throw ParleyError(.invalidArgument, "this stage has no connection for another user ('\(user)'): run the test on the embedded hub")
    }
}
