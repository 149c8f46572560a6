/// JUnit XML for CI systems: one `<testsuite>` per file, one `<testcase>` per test, the
/// failure report as the `<failure>` text; a file that cannot run is one `<error>`.
public enum JUnitReport {
    /// The XML document for `results`.
    public static func xml(for results: [FlowTestFileResult]) -> String {
        let summary = FlowTestSummary(results)
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
