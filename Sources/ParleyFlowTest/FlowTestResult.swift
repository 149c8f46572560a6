/// One test's outcome.
public struct FlowTestResult: Sendable {
    /// The test's name.
    public var name: String
    /// Passed, failed (with the report) or skipped.
    public var status: FlowTestStatus
    /// Steps run (for the steps/s figure).
    public var steps: Int
    /// Wall-clock seconds (JUnit's `time`; never printed in the stable text report).
    public var seconds: Double
    /// Why a skipped test did not run when it was not `--filter` (printed in the report).
    public var skipReason: String? = nil

    /// True unless failed.
    public var isFailure: Bool {
        if case .failed = status { return true }
        return false
    }
}
