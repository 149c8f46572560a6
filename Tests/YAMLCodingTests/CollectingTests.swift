import Testing
import YAMLCoding

/// Every error of a file in one run, and the decoding features custom types rely on.
@Suite struct CollectingTests {
    struct Step: Decodable, Equatable {
        var name: String
        var count: Int
    }

    struct Plan: Decodable, Equatable {
        var title: String
        var steps: [Step]
        var named: [String: Step]
    }

    let decoder = YAMLDecoder(environment: [:])

    @Test func errorsInSequenceEntriesDictionaryEntriesAndSiblingKeys() {
        let text = """
            title: [not, a, string]
            steps:
              - { name: a, count: x }
              - { name: b, count: 2 }
              - { count: 3 }
              - { name: d, count: 4, extra: 1 }
            named:
              one: { name: a, count: 1.5 }
              two: { name: b }
            """
        #expect(renderedErrors(Plan.self, text) == """
            test.yaml:1:8: error: expected a string, found a sequence
            title: [not, a, string]
                   ^
            test.yaml:3:23: error: expected a number, found 'x'
              - { name: a, count: x }
                                  ^
            test.yaml:5:5: error: missing required key 'name'
              - { count: 3 }
                ^
            test.yaml:6:26: error: unknown key 'extra'
              - { name: d, count: 4, extra: 1 }
                                     ^
            test.yaml:8:26: error: expected a whole number, found '1.5'
              one: { name: a, count: 1.5 }
                                     ^
            test.yaml:9:8: error: missing required key 'count'
              two: { name: b }
                   ^
            """)
    }

    @Test func emptyDocumentReportsEveryMissingKey() {
        #expect(renderedErrors(Step.self, "# nothing yet\n") == """
            test.yaml:1:1: error: missing required key 'count'
            # nothing yet
            ^
            test.yaml:1:1: error: missing required key 'name'
            # nothing yet
            ^
            """)
    }

    /// A value written either as a bare string or as a mapping, decided by trying.
    enum Reply: Decodable, Equatable {
        case text(String)
        case rich(text: String, quote: Bool)

        struct Rich: Decodable { var text: String; var quote: Bool }

        init(from decoder: any Decoder) throws {
            if let text = try? decoder.singleValueContainer().decode(String.self) {
                self = .text(text)
            } else {
                let rich = try decoder.singleValueContainer().decode(Rich.self)
                self = .rich(text: rich.text, quote: rich.quote)
            }
        }
    }

    @Test func probingWithTryQuestionMarkLeavesNoErrors() throws {
        let replies = try decoder.decode([Reply].self, from: "- hi\n- { text: yo, quote: true }\n", file: "t.yaml")
        #expect(replies == [.text("hi"), .rich(text: "yo", quote: true)])
        #expect(renderedErrors([Reply].self, "- { text: yo, quote: maybe }\n- { txt: a, quote: false }\n") == """
            test.yaml:1:22: error: expected true or false, found 'maybe'
            - { text: yo, quote: maybe }
                                 ^
            test.yaml:2:3: error: missing required key 'text'
            - { txt: a, quote: false }
              ^
            test.yaml:2:5: error: unknown key 'txt', did you mean 'text'?
            - { txt: a, quote: false }
                ^
            """)
    }

    /// Branching on the node instead of trying.
    enum Target: Decodable, Equatable {
        case one(String)
        case many([String])

        init(from decoder: any Decoder) throws {
            if case .sequence = decoder.yamlNode {
                self = .many(try [String](from: decoder))
            } else {
                self = .one(try String(from: decoder))
            }
        }
    }

    @Test func branchingOnTheNode() throws {
        #expect(try decoder.decode([Target].self, from: "- a\n- [b, c]\n", file: "t.yaml") == [.one("a"), .many(["b", "c"])])
    }

    struct Where: Decodable {
        var name: Located<String>
        var tags: [Located<String>]
        var mark: Mark?
        enum CodingKeys: String, CodingKey { case name, tags }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(Located<String>.self, forKey: .name)
            tags = try container.decode([Located<String>].self, forKey: .tags)
            mark = decoder.yamlMark
        }
    }

    @Test func locatedValuesAndMarks() throws {
        let value = try decoder.decode(Where.self, from: "\nname: bot\ntags: [x, y]\n", file: "t.yaml")
        #expect(value.name == Located(value: "bot", mark: Mark(line: 2, column: 7)))
        #expect(value.tags.map(\.mark) == [Mark(line: 3, column: 8), Mark(line: 3, column: 11)])
        #expect(value.mark == Mark(line: 2, column: 1))
        let source = SourceFile(name: "t.yaml", text: "\nname: bot\ntags: [x, y]\n")
        #expect(source.error(at: value.tags[1].mark, "unknown tag 'y'", codingPath: ["tags", "1"]).description == """
            t.yaml:3:11: error: unknown tag 'y'
            tags: [x, y]
                      ^
            """)
    }

    /// A list of located strings reports every bad element (and a non-list) as the generic path does.
    @Test func locatedStringListErrors() {
        #expect(renderedErrors(Where.self, "name: a\ntags: [x, ~, {a: b}, y, [z]]\n") == """
            test.yaml:2:11: error: expected a string, found null
            tags: [x, ~, {a: b}, y, [z]]
                      ^
            test.yaml:2:14: error: expected a string, found a mapping
            tags: [x, ~, {a: b}, y, [z]]
                         ^
            test.yaml:2:25: error: expected a string, found a sequence
            tags: [x, ~, {a: b}, y, [z]]
                                    ^
            """)
        #expect(renderedErrors(Where.self, "name: a\ntags: x\n") == """
            test.yaml:2:7: error: expected a sequence, found 'x'
            tags: x
                  ^
            """)
    }

    struct Nested: Decodable {
        var inner: Int
        var list: [Int]
        enum Outer: String, CodingKey { case box, items }
        enum Inner: String, CodingKey { case inner }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Outer.self)
            inner = try container.nestedContainer(keyedBy: Inner.self, forKey: .box).decode(Int.self, forKey: .inner)
            var items = try container.nestedUnkeyedContainer(forKey: .items)
            var list: [Int] = []
            while !items.isAtEnd { list.append(try items.decode(Int.self)) }
            self.list = list
        }
    }

    @Test func nestedContainersTrackTheirKeys() throws {
        let value = try decoder.decode(Nested.self, from: "box: { inner: 3 }\nitems: [1, 2]\n", file: "t.yaml")
        #expect(value.inner == 3)
        #expect(value.list == [1, 2])
        #expect(renderedErrors(Nested.self, "box: { inner: 3, iner: 4 }\nitems: [1, z]\n") == """
            test.yaml:1:18: error: unknown key 'iner', did you mean 'inner'?
            box: { inner: 3, iner: 4 }
                             ^
            test.yaml:2:12: error: expected a number, found 'z'
            items: [1, z]
                       ^
            """)
    }

    class Base: Decodable {
        let id: String
    }

    final class Derived: Base, @unchecked Sendable {
        let extra: Int
        enum CodingKeys: String, CodingKey { case extra }
        required init(from decoder: any Decoder) throws {
            extra = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .extra)
            try super.init(from: decoder)
        }
    }

    @Test func subclassAndSuperclassShareTheMapping() throws {
        let value = try decoder.decode(Derived.self, from: "id: a\nextra: 2\n", file: "t.yaml")
        #expect(value.id == "a")
        #expect(value.extra == 2)
        #expect(renderedErrors(Derived.self, "id: a\nextra: 2\nid2: x\n")?.hasPrefix("test.yaml:3:1: error: unknown key 'id2'") == true)
    }

    struct Validated: Decodable {
        var name: String
        init(from decoder: any Decoder) throws {
            name = try decoder.singleValueContainer().decode(String.self)
            guard !name.isEmpty else { throw DecodingError.dataCorruptedError(in: try decoder.singleValueContainer(), debugDescription: "empty name") }
        }
    }

    struct HasValidated: Decodable {
        var first: Validated
        var count: Int
    }

    @Test func aValidatingInitThatRejectsTheStandInStillReportsItsError() {
        // The stand-in for `first` ("") is rejected too, so the rest of the value is skipped.
        #expect(renderedErrors(HasValidated.self, "first: [x]\ncount: nope\n") == """
            test.yaml:1:8: error: expected a string, found a sequence
            first: [x]
                   ^
            """)
    }

    struct Keyed: Decodable {
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: ErrorMessageTestsKey.self)
            throw DecodingError.keyNotFound(ErrorMessageTestsKey.needed, .init(codingPath: container.codingPath, debugDescription: ""))
        }
    }

    @Test func keyNotFoundFromCustomCode() {
        #expect(renderedErrors([Keyed].self, "- {}\n") == """
            test.yaml:1:3: error: missing required key 'needed'
            - {}
              ^
            """)
    }

    struct Info: Decodable {
        var prefix: String
        init(from decoder: any Decoder) throws {
            let base = decoder.userInfo[CodingUserInfoKey(rawValue: "prefix")!] as? String ?? "?"
            prefix = base + (try decoder.singleValueContainer().decode(String.self))
        }
    }

    @Test func userInfoReachesInits() throws {
        var decoder = YAMLDecoder(environment: [:])
        decoder.userInfo[CodingUserInfoKey(rawValue: "prefix")!] = ">"
        #expect(try decoder.decode(Info.self, from: "x\n", file: "t.yaml").prefix == ">x")
    }

    @Test func mergedKeysCountAsPresentAndUnknownOnesAreReported() {
        #expect(renderedErrors([String: Step].self, """
            base: &base { name: shared, count: 1, colour: red }
            real:
              <<: *base
              count: 2
            """) == """
            test.yaml:1:39: error: unknown key 'colour'
            base: &base { name: shared, count: 1, colour: red }
                                                  ^
            """)
    }

    @Test func decodingFromANode() throws {
        let node = try parseYAML("name: n\ncount: 1\n", file: "n.yaml")
        let step = try decoder.decode(Step.self, from: node, source: SourceFile(name: "n.yaml", text: "name: n\ncount: 1\n"))
        #expect(step == Step(name: "n", count: 1))
    }
}

enum ErrorMessageTestsKey: String, CodingKey { case needed }
