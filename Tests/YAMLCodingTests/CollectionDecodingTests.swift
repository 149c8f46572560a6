import Foundation
import Testing
import YAMLCoding

@Suite struct CollectionDecodingTests {
    let decoder = YAMLDecoder(environment: [:])

    @Test func nestedAndOptionalCollections() throws {
        #expect(try decoder.decode([[Int]].self, from: "- [1, 2]\n- []\n- [3]\n", file: "t.yaml") == [[1, 2], [], [3]])
        #expect(try decoder.decode([String?].self, from: "- a\n- ~\n- ''\n", file: "t.yaml") == ["a", nil, ""])
        #expect(try decoder.decode([String: [String: Int]].self, from: "a: {x: 1}\nb: {}\n", file: "t.yaml") == ["a": ["x": 1], "b": [:]])
        #expect(try decoder.decode(Set<String>.self, from: "[a, b, a]", file: "t.yaml") == ["a", "b"])
        #expect(try decoder.decode([Int: String].self, from: "1: one\n2: two\n", file: "t.yaml") == [1: "one", 2: "two"])
        #expect(try decoder.decode([UInt8].self, from: "[1, 255]", file: "t.yaml") == [1, 255])
    }

    @Test func everyFailingElementIsReported() {
        #expect(renderedErrors([Int].self, "[1, x, 3, y]") == """
            test.yaml:1:5: error: expected a number, found 'x'
            [1, x, 3, y]
                ^
            test.yaml:1:11: error: expected a number, found 'y'
            [1, x, 3, y]
                      ^
            """)
        #expect(renderedErrors([String: [Int]].self, "a: 1\nb: [x]\n") == """
            test.yaml:1:4: error: expected a sequence, found '1'
            a: 1
               ^
            test.yaml:2:5: error: expected a number, found 'x'
            b: [x]
                ^
            """)
        #expect(renderedErrors([String: Int].self, "? [complex]\n: 1\n") == """
            test.yaml:1:3: error: expected a string key, found a sequence
            ? [complex]
              ^
            """)
    }

    struct Small: Decodable { var a: Int }

    @Test func unknownKeysBeyondSixtyFourPairs() {
        var text = "a: 1\n"
        for index in 0..<70 { text += "k\(index): \(index)\n" }
        let rendered = renderedErrors(Small.self, text) ?? ""
        #expect(rendered.components(separatedBy: "error: unknown key").count - 1 == 70)
        #expect(rendered.hasPrefix("test.yaml:2:1: error: unknown key 'k0'\n"))
    }

    @Test func manyKeysAreFoundThroughTheIndex() throws {
        struct Wide: Decodable { var k0: Int; var k19: Int; var k39: Int }
        var text = ""
        for index in 0..<40 { text += "k\(index): \(index)\n" }
        #expect(throws: YAMLErrors.self) { try decoder.decode(Wide.self, from: text, file: "t.yaml") }
        let wide = try decoder.decode([String: Int].self, from: text, file: "t.yaml")
        #expect(wide.count == 40)
        #expect(wide["k39"] == 39)
    }

    @Test func locatedAlsoWorksWithOtherDecoders() throws {
        let value = try JSONDecoder().decode(Located<String>.self, from: Data("\"x\"".utf8))
        #expect(value == Located(value: "x", mark: Mark(line: 0, column: 0)))
    }

    @Test func errorsJoinWithNewlines() {
        let errors = YAMLErrors([
            YAMLError(file: "b.yaml", mark: Mark(line: 1, column: 1), message: "second"),
            YAMLError(file: "a.yaml", mark: Mark(line: 9, column: 2), message: "first"),
            YAMLError(file: "a.yaml", mark: Mark(line: 9, column: 2), codingPath: ["x"], message: "first"),
        ])
        #expect(errors.errors.count == 2)
        #expect(errors.description == "a.yaml:9:2: error: first\nb.yaml:1:1: error: second")
    }

    @Test func largeFilesWithManyErrorsStayLinear() {
        // 1,000 failing entries: collected in one pass, not one retry per error.
        var text = ""
        for index in 0..<1_000 { text += "e\(index): {a: x\(index)}\n" }
        let rendered = renderedErrors([String: Small].self, text) ?? ""
        #expect(rendered.components(separatedBy: "expected a number").count - 1 == 1_000)
    }
}
