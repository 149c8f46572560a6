import Foundation
import ParleyCore

/// Where a test's conversation takes place: by default a fresh embedded hub per test
/// (`HubFlowTestStage`); a live server (Matrix) is another stage. The runner asks the stage for
/// two connections — the bot's and the test user's — and, through `FlowTestScene.connect`, one
/// per other speaker (`send: {…, as: USER}`), all speaking the ids the test file uses.
public protocol FlowTestStage: Sendable {
    /// Whether time is virtual. A live server runs on real time, so tests with `advance`
    /// steps are skipped there (with `virtualTimeSkipReason`).
    var supportsVirtualTime: Bool { get }
    /// The least wall-clock time a test needs here (a live server registers accounts and
    /// talks over HTTP); nil keeps the suite's limit.
    var minimumWallClock: Duration? { get }
    /// The most tests that may run at once here; nil: as many as the suite's `jobs`. A stage
    /// whose tests share accounts runs them one at a time.
    var maximumJobs: Int? { get }
    /// Sets up one test's world.
    func prepare(_ request: FlowTestStageRequest) async throws -> FlowTestScene
}

extension FlowTestStage {
    /// Why a test with `advance` steps is skipped on a stage without virtual time.
    public var virtualTimeSkipReason: String { "uses `advance` (virtual time), which a live server cannot do" }

    /// No minimum by default.
    public var minimumWallClock: Duration? { nil }

    /// No limit by default.
    public var maximumJobs: Int? { nil }
}

extension FlowTestStep {
    /// True for an `advance` step (which needs virtual time).
    var isAdvance: Bool {
        if case .advance? = kind { return true }
        return false
    }
}
