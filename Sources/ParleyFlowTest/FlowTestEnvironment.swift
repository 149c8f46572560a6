import ParleyBots
import ParleyCore
import ParleyHub

/// What one test runs in: a fresh in-memory hub (or another stage's server) on a virtual clock,
/// with the users and groups the test names already there.
public struct FlowTestEnvironment: Sendable {
    /// The bot under test, as loaded from its file.
    public let bot: LoadedBot
    /// The fresh embedded hub (nil on a stage that is not one).
    public let hub: Hub?
    /// The virtual clock everything runs on; time moves only on `advance` steps.
    public let clock: FlowTestClock
    /// The bot's connection to the server. It records every send and reaction for the runner,
    /// so the bot must talk through it (not through a transport of its own).
    public let transport: any Transport
    /// The profiles the test declares (also stored as the hub's users).
    public let profiles: [Profile]
    /// The user who talks in the test.
    public let userID: String
    /// Events the hub has handed the bot's transport so far (what makes idle exact).
    public let deliveredEventCount: @Sendable () -> Int
    /// Adds a line to the test's transcript (the engine's warnings and errors go here).
    public let log: @Sendable (String) -> Void
    /// The stage's wait for a bot it does not host (see `FlowTestScene.settle`).
    public var settle: (@Sendable () async throws -> Void)? = nil
}
