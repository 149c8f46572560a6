import Foundation
import ParleyCore

/// One test's outcome.
public struct TestResult: Sendable {
    /// The test's name.
    public var name: String
    /// Passed, failed (with the report) or skipped.
    public var status: TestStatus
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

/// How one test ended.
public enum TestStatus: Sendable {
    case passed
    case failed(TestFailure)
    /// Left out by `--filter`.
    case skipped
}

/// Why a test failed, where, and everything that happened up to then.
public struct TestFailure: Sendable, Error {
    /// The test file as shown to users.
    public var file: String
    /// Line of the failing step (of the test's name when no step is to blame).
    public var line: Int
    /// Column of the failing step.
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

/// One test file's outcome: its tests, or the errors that kept it from running.
public struct TestFileResult: Sendable {
    /// The file as shown to users.
    public var file: String
    /// Test results in file order.
    public var tests: [TestResult]
    /// Errors loading or validating the file (`file:line:col: message`); the file's tests did not run.
    public var errors: [String]

    /// Creates a result.
    public init(file: String, tests: [TestResult] = [], errors: [String] = []) {
        self.file = file
        self.tests = tests
        self.errors = errors
    }
}

/// The totals `parley test` ends with.
public struct TestSummary: Sendable, Hashable {
    /// Tests that passed.
    public var passed = 0
    /// Tests that failed, plus one per file that could not run.
    public var failed = 0
    /// Tests left out by the filter.
    public var skipped = 0
    /// Steps run over all tests.
    public var steps = 0

    /// Adds up `results`; a file that could not run counts as one failure.
    public init(_ results: [TestFileResult]) {
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

/// The text `parley test` prints: one line per test (tests left out by `--filter` are only
/// counted; tests a stage cannot run are listed with the reason), then the
/// failure reports, then `N passed, N failed`. Deterministic: no timings, file and test order.
public enum TextReport {
    /// The lines for one file's tests, in order.
    public static func lines(for file: TestFileResult) -> [String] {
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
    public static func failureLines(for results: [TestFileResult]) -> [String] {
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
    public static func text(for results: [TestFileResult]) -> String {
        var lines = results.flatMap(lines(for:))
        let failures = failureLines(for: results)
        if !failures.isEmpty { lines += [""] + failures }
        lines.append(TestSummary(results).line)
        return lines.joined(separator: "\n") + "\n"
    }
}

/// JUnit XML for CI systems: one `<testsuite>` per file, one `<testcase>` per test, the
/// failure report as the `<failure>` text; a file that cannot run is one `<error>`.
public enum JUnitReport {
    /// The XML document for `results`.
    public static func xml(for results: [TestFileResult]) -> String {
        let summary = TestSummary(results)
        let total = results.reduce(0.0) { $0 + $1.tests.reduce(0.0) { $0 + $1.seconds } }
        let errorFiles = results.count { !$0.errors.isEmpty }
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"parley test\" tests=\"\(summary.passed + summary.failed + summary.skipped)\""
            + " failures=\"\(summary.failed - errorFiles)\" errors=\"\(errorFiles)\" skipped=\"\(summary.skipped)\" time=\"\(seconds(total))\">\n"
        for file in results {
            let name = escape(file.file)
            if !file.errors.isEmpty {
                xml += "  <testsuite name=\"\(name)\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0.000\">\n"
                xml += "    <testcase classname=\"\(name)\" name=\"(load)\" time=\"0.000\">\n"
                xml += "      <error message=\"\(escape(file.errors[0]))\" type=\"invalid file\">\(escape(file.errors.joined(separator: "\n")))</error>\n"
                xml += "    </testcase>\n  </testsuite>\n"
                continue
            }
            let failures = file.tests.count(where: \.isFailure)
            let skipped = file.tests.count { if case .skipped = $0.status { return true }; return false }
            let time = file.tests.reduce(0.0) { $0 + $1.seconds }
            xml += "  <testsuite name=\"\(name)\" tests=\"\(file.tests.count)\" failures=\"\(failures)\" errors=\"0\""
                + " skipped=\"\(skipped)\" time=\"\(seconds(time))\">\n"
            for test in file.tests {
                xml += "    <testcase classname=\"\(name)\" name=\"\(escape(test.name))\" time=\"\(seconds(test.seconds))\""
                switch test.status {
                case .passed:
                    xml += "/>\n"
                case .skipped:
                    xml += ">\n      <skipped/>\n    </testcase>\n"
                case .failed(let failure):
                    xml += ">\n      <failure message=\"\(escape(failure.headline))\" type=\"flow test\">\(escape(failure.report))</failure>\n    </testcase>\n"
                }
            }
            xml += "  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
    }

    /// Text safe in XML content and in double-quoted attributes. Characters XML 1.0 cannot
    /// carry at all (control characters other than tab and line breaks, lone surrogates are
    /// impossible in Swift strings) are written as `\u{XX}` so nothing is silently lost.
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            case "\t", "\n", "\r": escaped += "&#\(scalar.value);"
            case "\u{FFFE}", "\u{FFFF}":
                escaped += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                    escaped += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            }
        }
        return escaped
    }

    private static func seconds(_ value: Double) -> String {
        let millis = Int((value * 1000).rounded())
        let fraction = String(millis % 1000)
        return "\(millis / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}

/// Turns a recorder's entries into the lines of a failure report.
struct TranscriptRenderer {
    let recorder: OutputRecorder
    let botID: String
    let start: Date

    /// One line per entry, after a line naming the start time.
    func lines() -> [String] {
        let outputs = recorder.outputs
        var lines = ["clock starts at \(Self.stamp(start))"]
        for entry in recorder.entries {
            switch entry {
            case .userMessage(let text, let channel, let time, let sender):
                let place = channel.kind == .group ? " in \(channel.target)" : ""
                lines.append("\(Self.time(time))  \(sender)\(place): \(ExpectationMatcher.quoted(text))")
            case .userReaction(let emoji, let messageID, let channel, let time, let sender):
                let place = channel.kind == .group ? " in \(channel.target)" : ""
                let target = recorder.text(ofMessage: messageID).map { " on " + ExpectationMatcher.quoted($0) } ?? ""
                lines.append("\(Self.time(time))  \(sender)\(place) reacted \(emoji)\(target)")
            case .output(let index):
                let output = outputs[index]
                lines.append("\(Self.time(output.time))  \(botID) → \(output.channel.target): \(describe(output))")
            case .sendFailed(let message, let channel, let time):
                lines.append("\(Self.time(time))  \(botID) → \(channel.target): \(message)")
            case .log(let line, let time):
                lines.append("\(Self.time(time))  log: \(line)")
            case .advanced(let duration, let from, let to):
                lines.append("\(Self.time(from))  clock advances \(duration) to \(Self.stamp(to))")
            case .restarted(let time):
                lines.append("\(Self.time(time))  the bot stops and starts again on its stored state")
            }
        }
        if lines.count == 1 { lines.append("(nothing happened)") }
        return lines
    }

    /// An output in one line: a quoted text, `card NAME { field: "value", … }` or a reaction.
    func describe(_ output: BotOutput) -> String {
        switch output.kind {
        case .reaction(let emoji, let messageID, let added):
            let target = recorder.text(ofMessage: messageID).map { " on " + ExpectationMatcher.quoted($0) } ?? ""
            return (added ? "reaction \(emoji)" : "reaction \(emoji) taken back") + target
        case .message(_, _, let replyTo):
            var text: String
            if let card = output.cardName {
                let fields = output.fields.sorted { $0.key < $1.key }
                text = "card \(card) { " + fields.map { "\($0.key): \(ExpectationMatcher.quoted($0.value))" }.joined(separator: ", ") + " }"
            } else {
                text = ExpectationMatcher.quoted(output.text ?? "")
            }
            if let replyTo {
                let quoted = recorder.text(ofMessage: replyTo).map(ExpectationMatcher.quoted) ?? "a message"
                text += " (quoting \(quoted)" + (replyTo == output.lastUserMessageID ? ", the user's last message)" : ")")
            }
            return text
        }
    }

    static func stamp(_ date: Date) -> String { date.formatted(.iso8601) }

    static func time(_ date: Date) -> String {
        date.formatted(.iso8601.time(includingFractionalSeconds: false))
    }
}
