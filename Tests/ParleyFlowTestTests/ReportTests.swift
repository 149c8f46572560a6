import Foundation
import Testing
import YAMLCoding
@testable import ParleyFlowTest

@Suite struct ReportTests {
    static let failure = TestFailure(file: "bots/a.test.yaml", line: 7, column: 9, test: "tom & \"jerry\"",
                                     step: #"expect: { text: "<b>" }"#, details: ["expected: x", "actual: y"],
                                     transcript: ["clock starts at 2026-01-01T00:00:00Z", "00:00:00  tester: \"hi\""])

    static let results = [
        TestFileResult(file: "bots/a.test.yaml", tests: [
            TestResult(name: "passes", status: .passed, steps: 3, seconds: 0.0014),
            TestResult(name: "tom & \"jerry\"", status: .failed(failure), steps: 2, seconds: 0.5),
            TestResult(name: "left out", status: .skipped, steps: 0, seconds: 0),
        ]),
        TestFileResult(file: "bots/b.test.yaml", errors: ["bots/b.test.yaml:1:6: unknown bot 'x'"]),
    ]

    @Test func textReportListsTestsThenFailuresThenTotals() {
        #expect(TextReport.text(for: Self.results) == """
            ok    bots/a.test.yaml: passes
            FAIL  bots/a.test.yaml: tom & "jerry"
            FAIL  bots/b.test.yaml (cannot run: 1 error)

            bots/a.test.yaml:7:9: test 'tom & "jerry"' failed at expect: { text: "<b>" }
              expected: x
              actual: y
              transcript:
                clock starts at 2026-01-01T00:00:00Z
                00:00:00  tester: "hi"

            bots/b.test.yaml:1:6: unknown bot 'x'

            1 passed, 2 failed, 1 skipped

            """)
    }

    @Test func summaryLeavesOutSkippedWhenNoneWere() {
        let results = [TestFileResult(file: "f", tests: [TestResult(name: "t", status: .passed, steps: 1, seconds: 0)])]
        #expect(TestSummary(results).line == "1 passed, 0 failed")
    }

    @Test func junitCountsAndEscapes() {
        let xml = JUnitReport.xml(for: Self.results)
        #expect(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"parley test\" tests=\"4\" failures=\"1\" errors=\"1\" skipped=\"1\" time=\"0.501\">"))
        #expect(xml.contains("<testsuite name=\"bots/a.test.yaml\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\" time=\"0.501\">"))
        #expect(xml.contains("<testcase classname=\"bots/a.test.yaml\" name=\"passes\" time=\"0.001\"/>"))
        #expect(xml.contains("name=\"tom &amp; &quot;jerry&quot;\""))
        #expect(xml.contains("<failure message=\"bots/a.test.yaml:7:9: test &apos;tom &amp; &quot;jerry&quot;&apos; failed at expect: { text: &quot;&lt;b&gt;&quot; }\" type=\"flow test\">"))
        #expect(xml.contains("<skipped/>"))
        #expect(xml.contains("<error message=\"bots/b.test.yaml:1:6: unknown bot &apos;x&apos;\" type=\"invalid file\">"))
        #expect(xml.hasSuffix("</testsuites>\n"))
        // No raw markup characters survive outside tags: every text was escaped.
        #expect(!xml.contains("<b>"))
    }

    @Test(arguments: [
        ("a&b", "a&amp;b"), ("<x>", "&lt;x&gt;"), ("'\"", "&apos;&quot;"), ("line\nbreak", "line&#10;break"),
        ("bell\u{7}", "bell\\u{7}"), ("é ❤️", "é ❤️"), ("\u{FFFE}", "\\u{FFFE}"),
    ])
    func xmlEscaping(_ input: String, _ expected: String) {
        #expect(JUnitReport.escape(input) == expected)
    }
}
