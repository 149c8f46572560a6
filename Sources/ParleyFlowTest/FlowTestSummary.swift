/// The totals `parley test` ends with.
public struct FlowTestSummary: Sendable, Hashable {
    /// Tests that passed.
    public var passed = 0
    /// Tests that failed, plus one per file that could not run.
    public var failed = 0
    /// Tests left out by the filter.
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
