import ParleyCore
import ParleyFlowTest

/// The "engine" of a test against an outside bot: nothing to start; idle is the stage's
/// quiet period.
public struct MatrixTargetBotHost: FlowTestBotHost {
    /// Creates the host.
    public init() {}

    public func start(_ environment: FlowTestEnvironment) async throws -> any FlowTestBotSession {
        guard let settle = environment.settle else {
            throw ParleyError(.invalidArgument, "an outside bot needs a stage that watches it (MatrixFlowTestStage with a target)")
        }
        return Session(settle: settle)
    }

    private struct Session: FlowTestBotSession {
        let settle: @Sendable () async throws -> Void
        func waitUntilIdle() async throws { try await settle() }
        func stop() async {}
    }
}
