import Testing
import YAMLCoding

/// Tags the decoder gives no meaning to are errors; the core schema's are accepted.
@Suite struct TagTests {
    struct Job: Decodable {
        var command: String
        var options: [String: Int]
    }

    @Test func foreignTagsAreErrorsAtTheTag() {
        #expect(renderedErrors(Job.self, """
            command: !!python/object:os.system ls
            options: !custom { a: 1 }
            extra: !<tag:example.com,2000:x> [1]
            """) == """
            test.yaml:1:10: error: unknown tag '!!python/object:os.system': expected no tag or one of !!str, !!int, !!float, !!bool, !!null, !!map, !!seq, !
            command: !!python/object:os.system ls
                     ^
            test.yaml:2:10: error: unknown tag '!custom': expected no tag or one of !!str, !!int, !!float, !!bool, !!null, !!map, !!seq, !
            options: !custom { a: 1 }
                     ^
            test.yaml:3:1: error: unknown key 'extra'
            extra: !<tag:example.com,2000:x> [1]
            ^
            test.yaml:3:8: error: unknown tag '!<tag:example.com,2000:x>': expected no tag or one of !!str, !!int, !!float, !!bool, !!null, !!map, !!seq, !
            extra: !<tag:example.com,2000:x> [1]
                   ^
            """)
    }

    @Test func coreSchemaTagsAreAccepted() throws {
        let job = try YAMLDecoder(environment: [:]).decode(Job.self, from: """
            !!map
            command: !!str ls
            options: !!map { a: !!int 1, b: ! 2 }
            """, file: "test.yaml")
        #expect(job.command == "ls")
        #expect(job.options == ["a": 1, "b": 2])
        #expect(try YAMLDecoder(environment: [:]).decode([Double?].self, from: "!!seq [!!float 1.5, !!null ~]", file: "t.yaml") == [1.5, nil])
        #expect(try YAMLDecoder(environment: [:]).decode([Bool].self, from: "- !<tag:yaml.org,2002:bool> true", file: "t.yaml") == [true])
    }

    /// A node parsed before (a section of a config file) is checked when decoded.
    @Test func foreignTagsInAParsedNodeAreErrors() throws {
        let text = "command: ls\noptions: { a: !!binary 1 }\n"
        let node = try parseYAML(text, file: "test.yaml")
        do {
            _ = try YAMLDecoder(environment: [:]).decode(Job.self, from: node, source: SourceFile(name: "test.yaml", text: text))
            Issue.record("decoded")
        } catch {
            #expect(error.description == """
                test.yaml:2:15: error: unknown tag '!!binary': expected no tag or one of !!str, !!int, !!float, !!bool, !!null, !!map, !!seq, !
                options: { a: !!binary 1 }
                              ^
                """)
        }
    }
}
