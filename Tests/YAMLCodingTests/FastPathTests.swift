import Testing
import YAMLCoding

/// The shortcuts taken for speed (`Located` without a decoder of its own, the next-key guess in
/// mappings) must not change what is decoded or reported.
@Suite struct FastPathTests {
    struct Plain: Decodable {
        var port: Int
        var hosts: [Int]
        var nested: Inner
    }

    struct Wrapped: Decodable {
        var port: Located<Int>
        var hosts: Located<[Located<Int>]>
        var nested: Located<Inner>
    }

    struct Inner: Decodable {
        var flag: Bool
    }

    @Test func locatedValuesReportExactlyTheErrorsOfTheBareValues() throws {
        let text = """
            port: eighty
            hosts: [1, two, 3]
            nested: { flag: maybe, extra: 1 }
            """
        let bare = try #require(renderedErrors(Plain.self, text))
        #expect(renderedErrors(Wrapped.self, text) == bare)
        #expect(bare.contains("test.yaml:1:7: error: expected a number, found 'eighty'"))
        #expect(bare.contains("test.yaml:2:12: error: expected a number, found 'two'"))
        #expect(bare.contains("test.yaml:3:17: error: expected true or false, found 'maybe'"))
        #expect(bare.contains("test.yaml:3:24: error: unknown key 'extra'"))
    }

    @Test func locatedValuesKeepTheirMarks() throws {
        let value = try YAMLDecoder(environment: [:]).decode(Wrapped.self, from: "port: 80\nhosts:\n  - 1\n  - 2\nnested: {flag: true}\n", file: "t.yaml")
        #expect(value.port == Located(value: 80, mark: Mark(line: 1, column: 7)))
        #expect(value.hosts.mark == Mark(line: 3, column: 3))
        #expect(value.hosts.value.map(\.mark) == [Mark(line: 3, column: 5), Mark(line: 4, column: 5)])
        #expect(value.nested.value.flag)
    }

    /// Twenty keys (past the small-mapping scan) asked in reverse file order, and one unknown.
    struct Many: Decodable {
        var values: [String: Int] = [:]
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            for index in (0..<20).reversed() {
                values["k\(index)"] = try container.decode(Int.self, forKey: Key("k\(index)"))
            }
        }
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    @Test func keysAskedOutOfOrderAreAllFound() throws {
        let text = (0..<20).map { "k\($0): \($0)" }.joined(separator: "\n")
        let value = try YAMLDecoder(environment: [:]).decode(Many.self, from: text, file: "t.yaml")
        #expect(value.values.count == 20)
        #expect(value.values["k13"] == 13)
        let withTypo = text + "\nk5x: 1\n"
        #expect(renderedErrors(Many.self, withTypo) == "test.yaml:21:1: error: unknown key 'k5x', did you mean 'k5'?\nk5x: 1\n^")
    }
}
