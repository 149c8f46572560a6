import Testing
import YAMLCoding

@Suite struct NodeTreeTests {
    func scalar(_ text: String, key: String = "v") throws -> Node.Scalar {
        let root = try parseYAML(text, file: "t.yaml")
        return try #require(root[key]?.scalar)
    }

    @Test(arguments: [
        ("v: plain text  # comment\n", "plain text", Node.ScalarStyle.plain),
        ("v: 'it''s'\n", "it's", .singleQuoted),
        ("v: \"tab\\there \\u00e9 \\x41 \\\"q\\\"\"\n", "tab\there é A \"q\"", .doubleQuoted),
        ("v: |\n  line 1\n  line 2\n", "line 1\nline 2\n", .literal),
        ("v: |-\n  stripped\n\n", "stripped", .literal),
        ("v: |+\n  kept\n\n", "kept\n\n", .literal),
        ("v: |2\n    indented\n  less\n", "  indented\nless\n", .literal),
        ("v: >\n  folded\n  lines\n\n  para\n", "folded lines\npara\n", .folded),
        ("v: >-\n  folded\n  strip\n", "folded strip", .folded),
        ("v: multi\n  line\n  plain\n", "multi line plain", .plain),
        ("v: \"multi\n  line\"\n", "multi line", .doubleQuoted),
        ("v: 👋 héllo 🤖\n", "👋 héllo 🤖", .plain),
    ])
    func scalarStyles(text: String, value: String, style: Node.ScalarStyle) throws {
        let found = try scalar(text)
        #expect(found.value == value)
        #expect(found.style == style)
    }

    @Test func everyNodeHasItsMark() throws {
        let root = try parseYAML("""
            # comment
            name: bot
            list:
              - a
              - { k: v, other: [1, 2] }
            """, file: "t.yaml")
        #expect(root.mark == Mark(line: 2, column: 1))
        #expect(root["name"]?.mark == Mark(line: 2, column: 7))
        let list = try #require(root["list"]?.sequence)
        #expect(list.mark == Mark(line: 4, column: 3))
        #expect(list.elements.map(\.mark) == [Mark(line: 4, column: 5), Mark(line: 5, column: 5)])
        let flow = try #require(list.elements[1].mapping)
        #expect(flow.pairs.map(\.key.mark) == [Mark(line: 5, column: 7), Mark(line: 5, column: 13)])
        #expect(flow.value(forKey: "other")?.sequence?.elements.map(\.mark) == [Mark(line: 5, column: 21), Mark(line: 5, column: 24)])
        let mapping = try #require(root.mapping)
        #expect(mapping.pairs.map { $0.key.scalar?.value } == ["name", "list"])
    }

    @Test func emojiColumnsCountCharacters() throws {
        let root = try parseYAML("k: [😀, x]\n", file: "t.yaml")
        #expect(root["k"]?.sequence?.elements.last?.mark == Mark(line: 1, column: 8))
    }

    @Test func tagsAreResolved() throws {
        let root = try parseYAML("a: !!str 12\nb: !custom x\nc: ! y\n", file: "t.yaml")
        #expect(root["a"]?.tag == "tag:yaml.org,2002:str")
        #expect(root["b"]?.tag == "!custom")
        #expect(root["c"]?.tag == "!")
        #expect(root["a"]?.isNull == false)
    }

    @Test(arguments: ["v: ~", "v: null", "v: Null", "v: NULL", "v:", "v: !!null x"])
    func nulls(text: String) throws {
        #expect(try parseYAML(text, file: "t.yaml")["v"]?.isNull == true)
    }

    @Test(arguments: ["v: 'null'", "v: \"\"", "v: nil", "v: !!str ~"])
    func notNulls(text: String) throws {
        #expect(try parseYAML(text, file: "t.yaml")["v"]?.isNull == false)
    }

    @Test func aliasesAreResolvedCopies() throws {
        let root = try parseYAML("base: &b { x: 1 }\nuse: *b\nitem: &i hello\nagain: *i\n", file: "t.yaml")
        #expect(root["use"] == root["base"])
        #expect(root["again"]?.scalar?.value == "hello")
        // libyaml starts an anchored node at its anchor.
        #expect(root["use"]?.mark == Mark(line: 1, column: 7))
    }

    @Test func mergeKeys() throws {
        let root = try parseYAML("""
            defaults: &d { timeout: 10, retries: 3, mode: a }
            extra: &e { mode: b, color: red }
            single:
              <<: *d
              retries: 5
            listed:
              mode: own
              <<: [*e, *d]
            """, file: "t.yaml")
        let single = try #require(root["single"]?.mapping)
        #expect(single.pairs.map { $0.key.scalar?.value } == ["timeout", "mode", "retries"])
        #expect(single.value(forKey: "retries")?.scalar?.value == "5")
        let listed = try #require(root["listed"]?.mapping)
        #expect(listed.pairs.map { $0.key.scalar?.value } == ["mode", "color", "timeout", "retries"])
        #expect(listed.value(forKey: "mode")?.scalar?.value == "own")
    }

    @Test func badMergeValueIsAnError() {
        #expect(parseErrors("a:\n  <<: 3\n  b: 1\n") == """
            test.yaml:2:7: error: a merge key '<<' takes a mapping or a sequence of mappings, found '3'
              <<: 3
                  ^
            """)
    }

    @Test func quotedMergeKeyIsAnOrdinaryKey() throws {
        let root = try parseYAML("a:\n  '<<': { x: 1 }\n", file: "t.yaml")
        #expect(root["a"]?.mapping?.pairs.first?.key.scalar?.value == "<<")
    }

    @Test func multiDocumentStreams() throws {
        let documents = try parseYAMLDocuments("--- 1\n--- [a]\n...\n--- {k: v}\n", file: "t.yaml")
        #expect(documents.count == 3)
        #expect(documents[1].sequence?.elements.first?.scalar?.value == "a")
        #expect(try parseYAMLDocuments("", file: "t.yaml").isEmpty)
        #expect(parseErrors("--- a\n--- b\n") == """
            test.yaml:2:5: error: expected one YAML document, found several
            --- b
                ^
            """)
    }

    @Test func emptyTextIsANullDocument() throws {
        #expect(try parseYAML("", file: "t.yaml").isNull)
        #expect(try parseYAML("# only a comment\n", file: "t.yaml").isNull)
    }

    @Test func recursiveAliasIsAnError() {
        #expect(parseErrors("a: &x [1, *x]\n") == """
            test.yaml:1:11: error: alias '*x' refers to the collection that contains it
            a: &x [1, *x]
                      ^
            """)
    }

    @Test func eventCounter() throws {
        // stream start/end, document start/end, mapping start/end, two scalars.
        #expect(try YAMLEventCounter.count("a: b\n") == 8)
        #expect(throws: YAMLErrors.self) { try YAMLEventCounter.count("a: [\n") }
    }
}
