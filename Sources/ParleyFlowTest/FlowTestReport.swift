/// The text `parley test` prints: one line per test (tests left out by `--filter` are only
/// counted; tests a stage cannot run are listed with the reason), then the
/// failure reports, then `N passed, N failed`. Deterministic: no timings, file and test order.
public enum FlowTestReport {
    /// The lines for one file's tests, in order.
    public static func lines(for file: FlowTestFileResult) -> [String] {
        if !file.errors.isEmpty {
            return ["FAIL  \(file.file) (cannot run: \(file.errors.count) error\(file.errors.count == 1 ? "" : "s"))"]
        }
        return file.tests.compactMap { test in
            switch test.status {
            case .passed: "ok    \(file.file): \(test.name)"
            case .failed: "FAIL  \(file.file): \(test.name)"
            case .skipped: test.skipReason.map { "skip  \(file.file): \(test.name) (\($0))" }
            }
        }
    }

    /// The failure reports of every file, each followed by a blank line; empty when all passed.
    public static func failureLines(for results: [FlowTestFileResult]) -> [String] {
        var lines: [String] = []
        for file in results {
            if !file.errors.isEmpty {
                lines += file.errors
                lines.append("")
            }
            for test in file.tests {
                guard case .failed(let failure) = test.status else { continue }
                lines.append(failure.report)
                lines.append("")
            }
        }
        return lines
    }

    /// The whole report for `results` (what `parley test` prints to standard output).
    public static func text(for results: [FlowTestFileResult]) -> String {
        var lines = results.flatMap(lines(for:))
        let failures = failureLines(for: results)
        if !failures.isEmpty { lines += [""] + failures }
        lines.append(FlowTestSummary(results).line)
        return lines.joined(separator: "\n") + "\n"
    }
}
