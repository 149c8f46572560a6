import Foundation
import Testing
import YAMLCoding

/// `YAMLNodeDecodable` types read through a `NodeReader` report exactly what the same schema
/// reports through `init(from:)`: the same messages, positions, paths and suggestions.
@Suite struct NodeReaderTests {
    // MARK: - The same schema twice: Codable and read

    struct CodableStep: Decodable {
        var name: String
        var count: Int
        var note: Located<String>?
    }

    struct CodablePlan: Decodable {
        var title: String
        var steps: [CodableStep]
        var named: [String: CodableStep]?
    }

    struct Step: YAMLNodeDecodable {
        var name: String
        var count: Int
        var note: Located<String>?
        var mark: Mark

        init(yaml reader: NodeReader) throws {
            mark = reader.mark
            try reader.expectMapping()
            name = try reader.decode(String.self, forKey: "name")
            count = try reader.decode(Int.self, forKey: "count")
            note = reader.decodeIfPresent(Located<String>.self, forKey: "note")
        }
    }

    struct Plan: YAMLNodeDecodable {
        var title: String
        var steps: [Step]
        var named: [String: Step]?

        init(yaml reader: NodeReader) throws {
            try reader.expectMapping()
            title = try reader.decode(String.self, forKey: "title")
            steps = try reader.decode([Step].self, forKey: "steps")
            named = reader.decodeIfPresent([String: Step].self, forKey: "named")
        }
    }

    static let broken = """
        title: [not, a, string]
        steps:
          - { name: a, count: x }
          - { name: b, count: 2, not: 1 }
          - { count: 3 }
          - { name: d, count: 4, extra: 1, note: [x] }
          - just text
        named:
          one: { name: a, count: 1.5 }
          two: { name: b, cont: 2 }
        tittle: typo
        """

    @Test func everyErrorAsInitFromReportsIt() throws {
        let read = try #require(renderedErrors(Plan.self, Self.broken))
        #expect(read == renderedErrors(CodablePlan.self, Self.broken))
        #expect(read == """
            test.yaml:1:8: error: expected a string, found a sequence
            title: [not, a, string]
                   ^
            test.yaml:3:23: error: expected a number, found 'x'
              - { name: a, count: x }
                                  ^
            test.yaml:4:26: error: unknown key 'not', did you mean 'note'?
              - { name: b, count: 2, not: 1 }
                                     ^
            test.yaml:5:5: error: missing required key 'name'
              - { count: 3 }
                ^
            test.yaml:6:26: error: unknown key 'extra'
              - { name: d, count: 4, extra: 1, note: [x] }
                                     ^
            test.yaml:6:42: error: expected a string, found a sequence
              - { name: d, count: 4, extra: 1, note: [x] }
                                                     ^
            test.yaml:7:5: error: expected a mapping, found 'just text'
              - just text
                ^
            test.yaml:9:26: error: expected a whole number, found '1.5'
              one: { name: a, count: 1.5 }
                                     ^
            test.yaml:10:8: error: missing required key 'count'
              two: { name: b, cont: 2 }
                   ^
            test.yaml:10:19: error: unknown key 'cont', did you mean 'count'?
              two: { name: b, cont: 2 }
                              ^
            test.yaml:11:1: error: unknown key 'tittle', did you mean 'title'?
            tittle: typo
            ^
            """)
    }

    @Test func codingPathsAsInitFromGivesThem() throws {
        func paths<T: Decodable>(_ type: T.Type) -> [[String]] {
            do {
                _ = try YAMLDecoder(environment: [:]).decode(T.self, from: Self.broken, file: "test.yaml")
                return []
            } catch {
                return error.errors.map(\.codingPath)
            }
        }
        let read = paths(Plan.self)
        #expect(read == paths(CodablePlan.self))
        #expect(read.contains(["steps", "1", "not"]))
        #expect(read.contains(["named", "two", "count"]))
    }

    @Test func decodesValuesWithMarks() throws {
        let text = "title: T\nsteps:\n  - name: a\n    count: 1\n    note: hi\n"
        let plan = try YAMLDecoder(environment: [:]).decode(Plan.self, from: text, file: "t.yaml")
        #expect(plan.title == "T")
        #expect(plan.steps.count == 1)
        #expect(plan.steps[0].mark == Mark(line: 3, column: 5))
        #expect(plan.steps[0].note == Located(value: "hi", mark: Mark(line: 5, column: 11)))
        #expect(plan.named == nil)
    }

    struct CodableHolder: Decodable {
        var main: CodableStep
        var extra: Located<CodableStep>?
        var other: CodableStep?
    }

    /// Reads through the overloads for types that read themselves (required, optional, located).
    struct Holder: YAMLNodeDecodable {
        var main: Step
        var extra: Located<Step>?
        var other: Step?

        init(yaml reader: NodeReader) throws {
            try reader.expectMapping()
            main = try reader.decode(Step.self, forKey: "main")
            extra = reader.decodeIfPresent(Located<Step>.self, forKey: "extra")
            other = reader.decodeIfPresent(Step.self, forKey: "other")
        }
    }

    @Test func nestedReadTypesReportAsInitFrom() throws {
        let text = "main: {name: a, count: z}\nextra: {name: b, count: 2, xtra: 1}\nother: [1]\n"
        let read = try #require(renderedErrors(Holder.self, text))
        #expect(read == renderedErrors(CodableHolder.self, text))
        #expect(read == """
            test.yaml:1:24: error: expected a number, found 'z'
            main: {name: a, count: z}
                                   ^
            test.yaml:2:28: error: unknown key 'xtra'
            extra: {name: b, count: 2, xtra: 1}
                                       ^
            test.yaml:3:8: error: expected a mapping, found a sequence
            other: [1]
                   ^
            """)
        #expect(renderedErrors(Holder.self, "other: {name: c, count: 3}\n") == renderedErrors(CodableHolder.self, "other: {name: c, count: 3}\n"))
        let holder = try YAMLDecoder(environment: [:]).decode(Holder.self, from: "main: {name: a, count: 1}\nextra:\n  name: b\n  count: 2\n", file: "t.yaml")
        #expect(holder.extra?.mark == Mark(line: 3, column: 3))
        #expect(holder.extra?.value.count == 2)
        #expect(holder.other == nil)
    }

    // MARK: - Mixing with Codable

    struct Wrapper: Decodable {
        var step: Step
        var located: Located<Step>
        var list: [Step]
    }

    @Test func readTypesInsideCodableTypesAndBack() throws {
        let text = "step: {name: a, count: 1}\nlocated: {name: b, count: 2}\nlist: [{name: c, count: x}, {name: d, count: 4, bad: 1}]\n"
        #expect(renderedErrors(Wrapper.self, text) == """
            test.yaml:3:25: error: expected a number, found 'x'
            list: [{name: c, count: x}, {name: d, count: 4, bad: 1}]
                                    ^
            test.yaml:3:49: error: unknown key 'bad'
            list: [{name: c, count: x}, {name: d, count: 4, bad: 1}]
                                                            ^
            """)
        let fixed = text.replacingOccurrences(of: "count: x", with: "count: 3").replacingOccurrences(of: ", bad: 1", with: "")
        let value = try YAMLDecoder(environment: [:]).decode(Wrapper.self, from: fixed, file: "t.yaml")
        #expect(value.located.mark == Mark(line: 2, column: 10))
        #expect(value.located.value.name == "b")
        #expect(value.list.map(\.count) == [3, 4])
    }

    /// Synthesized `init(from:)` would decode this from JSON; the reader's bridge refuses.
    struct Name: YAMLNodeDecodable {
        var name: String
        init(yaml reader: NodeReader) throws {
            try reader.expectMapping()
            name = try reader.decode(String.self, forKey: "name")
        }
    }

    @Test func otherDecodersAreRefusedClearly() throws {
        let error = try #require(throws: DecodingError.self) {
            _ = try JSONDecoder().decode(Name.self, from: Data(#"{"name": "a"}"#.utf8))
        }
        guard case .typeMismatch(_, let context) = error else {
            Issue.record("expected a type mismatch, got \(error)")
            return
        }
        #expect(context.debugDescription == "Name decodes from YAML only (YAMLDecoder)")
        #expect(try YAMLDecoder(environment: [:]).decode(Name.self, from: "name: a", file: "t.yaml").name == "a")
    }

    // MARK: - Reader features

    /// Keys in file order with their marks, plus a problem only the type can see.
    struct Tags: YAMLNodeDecodable {
        var entries: [(name: String, keyMark: Mark, value: String)] = []

        init(yaml reader: NodeReader) throws {
            try reader.expectMapping()
            try reader.forEachKey { name, keyMark, _ in
                let value = try reader.decode(String.self, forKey: name)
                if value.isEmpty { reader.recordError("tag '\(name)' is empty", at: keyMark) }
                entries.append((name, keyMark, value))
            }
        }
    }

    @Test func forEachKeyGivesKeysInOrderWithMarks() throws {
        let tags = try YAMLDecoder(environment: [:]).decode(Tags.self, from: "b: 1\na: 2\n", file: "t.yaml")
        #expect(tags.entries.map(\.name) == ["b", "a"])
        #expect(tags.entries.map(\.keyMark) == [Mark(line: 1, column: 1), Mark(line: 2, column: 1)])
        #expect(tags.entries.map(\.value) == ["1", "2"])
    }

    @Test func recordedErrorsFailTheValue() {
        #expect(renderedErrors(Tags.self, "a: x\nb: ''\n") == """
            test.yaml:2:1: error: tag 'b' is empty
            b: ''
            ^
            """)
    }

    @Test func emptyDocumentIsAnEmptyMapping() {
        #expect(renderedErrors(Step.self, "# nothing\n") == """
            test.yaml:1:1: error: missing required key 'count'
            # nothing
            ^
            test.yaml:1:1: error: missing required key 'name'
            # nothing
            ^
            """)
    }

    @Test func unknownKeysCanBeIgnored() throws {
        let step = try #require(YAMLDecoder(environment: [:]).decodeIgnoringUnknownKeys(Step.self, from: "name: a\ncount: 2\nextra: 1\n", file: "t.yaml"))
        #expect(step.name == "a" && step.count == 2)
        #expect(YAMLDecoder(environment: [:]).decodeIgnoringUnknownKeys(Step.self, from: "name: a\ncount: x\n", file: "t.yaml") == nil)
    }

    @Test func environmentSubstitutionAppliesToReadValues() throws {
        let step = try YAMLDecoder(environment: ["N": "7"]).decode(Step.self, from: "name: ${WHO:-anon}\ncount: ${N}\nnote: ${N}\n", file: "t.yaml")
        #expect(step.name == "anon" && step.count == 7 && step.note?.value == "7")
        #expect(renderedErrors(Step.self, "name: ${MISSING}\ncount: 1\n") == """
            test.yaml:1:7: error: environment variable 'MISSING' is not set (use '${MISSING:-default}' for a default)
            name: ${MISSING}
                  ^
            """)
    }
}
