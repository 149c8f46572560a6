import ParleyBots
import ParleyCore
import ParleyHub

/// Runs the bot under test for the flow-test runner: the bot engine behind a small seam, so
/// the runner knows nothing of routers or flows, only "start", "idle" and "stop".
public protocol FlowTestBotHost: Sendable {
    /// Starts the bot of `environment` on its transport and clock, ready for the first step.
    func start(_ environment: FlowTestEnvironment) async throws -> any FlowTestBotSession
}
