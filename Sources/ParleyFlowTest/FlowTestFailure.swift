/// Why a test failed, where, and everything that happened up to then.
public struct FlowTestFailure: Sendable, Error {
    /// The test file as shown to users.
    public var file: String
    /// Line and column of the failing step (of the test's name when no step is to blame).
    public var line: Int
    public var column: Int
    /// The test's name.
    public var test: String
    /// The failing step in one line (`expect: { text: "pong" }`).
    public var step: String
    /// What went wrong: expected vs. actual, one item a line.
    public var details: [String]
    /// The test's transcript so far, one entry a line.
    public var transcript: [String]

    /// `file:line:col: test 'name' failed at step` — the first line of the report and JUnit's message.
    public var headline: String {
        "\(file):\(line):\(column): test '\(test)' failed at \(step)"
    }

    /// The full report: headline, details, transcript.
    public var report: String {
        var lines = [headline]
        lines += details.map { "  " + $0 }
        lines.append("  transcript:")
        lines += transcript.map { "    " + $0 }
        return lines.joined(separator: "\n")
    }
}
