import Foundation
import Testing
@testable import ParleyFlowTest

#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite struct JUnitWellFormedTests {
    final class Collector: NSObject, XMLParserDelegate {
        var failureTexts: [String] = []
        var names: [String] = []
        private var inFailure = false
        func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            if element == "testcase", let name = attributes["name"] { names.append(name) }
            if element == "failure" { inFailure = true; failureTexts.append("") }
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if inFailure { failureTexts[failureTexts.count - 1] += string }
        }
        func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
            if element == "failure" { inFailure = false }
        }
    }

    /// A real XML parser reads the report back: names and failure texts arrive unchanged.
    @Test func parsesBackWithHostileText() throws {
        let hostile = "a <b> & \"c\" 'd' ]]> \u{1} ❤️\nline"
        var failure = ReportTests.failure
        failure.test = hostile
        failure.details = [hostile]
        let results = [TestFileResult(file: "f.test.yaml", tests: [TestResult(name: hostile, status: .failed(failure), steps: 1, seconds: 0)])]
        let parser = XMLParser(data: Data(JUnitReport.xml(for: results).utf8))
        let collector = Collector()
        parser.delegate = collector
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        let expected = hostile.replacingOccurrences(of: "\u{1}", with: "\\u{1}")
        #expect(collector.names == [expected])
        #expect(collector.failureTexts.first?.contains("\n  " + expected) == true)
    }
}
