import Foundation
import Testing
import YAMLCoding
@testable import ParleyFlowTest

@Suite struct WriterTests {
    /// Written scalars read back as the same string, whatever they contain.
    @Test(arguments: ["plain", "yes", "123", "# not a comment", "{ flow }", "quote \" and \\ back", "tab\tand\nnewline",
                      "bell\u{7}", "❤️ emoji", "", "- dash", "key: value", "\u{FEFF}bom", "null", "~",
                      // A user typing what looks like a reference, or its escape, gets it back as typed.
                      "home is ${HOME}", "${HOME:-x}", "$${HOME}", "$$${HOME}", "cost $5 {ok}", "ends in $", "${"])
    func scalarsRoundTrip(_ text: String) throws {
        let yaml = "value: \(TestFileWriter.scalar(text))\n"
        let decoded = try YAMLDecoder().decode([String: String].self, from: yaml, file: "x.yaml")
        #expect(decoded["value"] == text)
    }

    @Test(arguments: [("name", "name"), ("order_id", "order_id"), ("a b", "\"a b\""), ("1x", "\"1x\""), ("", "\"\"")])
    func keys(_ input: String, _ expected: String) {
        #expect(TestFileWriter.key(input) == expected)
    }
}
