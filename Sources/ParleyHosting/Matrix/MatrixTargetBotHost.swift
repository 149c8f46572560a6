import ParleyCore
import ParleyFlowTest

/// The "engine" of a test against an outside bot: nothing to start; idle is the stage's
/// quiet period.
public struct MatrixTargetBotHost: TestBotHost {
    /// Creates the host.
    public init() {}

    public func start(_ run: TestRun, in stage: any StageSession, transport: any Transport) async throws -> any TestBotSession {
        guard let watched = stage as? MatrixTestStage.TargetSession else {
            throw ParleyError(.invalidArgument, "an outside bot needs a stage that watches it (MatrixTestStage with a target)")
        }
        return Session(watched: watched)
    }

    private struct Session: TestBotSession {
        let watched: MatrixTestStage.TargetSession
        func waitUntilIdle() async throws { try await watched.settle() }
        func stop() async {}
    }
}
