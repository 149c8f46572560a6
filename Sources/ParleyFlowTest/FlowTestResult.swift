/// How one test ended.
public enum FlowTestStatus: Sendable {
    case passed
    case failed(FlowTestFailure)
    /// Left out by `--filter`.
    case skipped
}

/// One test's outcome.
public struct FlowTestResult: Sendable {
    /// The test's name.
    public var name: String
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

/// One test file's outcome: its tests, or the errors that kept it from running.
public struct FlowTestFileResult: Sendable {
    /// The file as shown to users.
    public var file: String
    /// Test results in file order.
    public var tests: [FlowTestResult]
    /// Errors loading or validating the file (`file:line:col: message`); the file's tests did not run.
    public var errors: [String]

    /// Creates a result.
    public init(file: String, tests: [FlowTestResult] = [], errors: [String] = []) {
        self.file = file
        self.tests = tests
        self.errors = errors
    }
}

/// The totals `parley test` ends with.
public struct FlowTestSummary: Sendable, Hashable {
    public var passed = 0
    public var failed = 0
    public var skipped = 0
    /// Steps run over all tests.
    public var steps = 0

    /// Adds up `results`; a file that could not run counts as one failure.
    public init(_ results: [FlowTestFileResult]) {
        for file in results {
            if !file.errors.isEmpty { failed += 1 }
            for test in file.tests {
                steps += test.steps
                switch test.status {
                case .passed: passed += 1
                case .failed: failed += 1
                case .skipped: skipped += 1
                }
            }
        }
    }

    /// `N passed, N failed` plus `, N skipped` when any were left out.
    public var line: String {
        "\(passed) passed, \(failed) failed" + (skipped > 0 ? ", \(skipped) skipped" : "")
    }
}
