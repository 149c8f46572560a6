import Testing
import YAMLCoding

/// Whole rendered messages, one test per kind of error (the Yams `YamlErrorTests` habit).
@Suite struct ErrorMessageTests {
    struct Server: Decodable {
        var host: String
        var port: Int
        var secure: Bool?
        var ratio: Double?
        var level: UInt8?
    }

    @Test func typeMismatch() {
        #expect(renderedErrors(Server.self, "host: h\nport: abc\n") == """
            test.yaml:2:7: error: expected a number, found 'abc'
            port: abc
                  ^
            """)
    }

    @Test func booleansAreOnlyTrueAndFalse() {
        #expect(renderedErrors(Server.self, "host: h\nport: 1\nsecure: yes\n") == """
            test.yaml:3:9: error: expected true or false, found 'yes'
            secure: yes
                    ^
            """)
    }

    @Test func numbersOutOfRangeAndFractions() {
        #expect(renderedErrors(Server.self, "host: h\nport: 1.5\nlevel: 300\nratio: 1x\n") == """
            test.yaml:2:7: error: expected a whole number, found '1.5'
            port: 1.5
                  ^
            test.yaml:3:8: error: expected a number from 0 to 255, found '300'
            level: 300
                   ^
            test.yaml:4:8: error: expected a number, found '1x'
            ratio: 1x
                   ^
            """)
    }

    @Test func quotedNumbersAreStrings() {
        #expect(renderedErrors(Server.self, "host: h\nport: \"80\"\n") == """
            test.yaml:2:7: error: expected a number, found the quoted string '80'
            port: "80"
                  ^
            """)
    }

    @Test func nullForARequiredValue() {
        #expect(renderedErrors(Server.self, "host: ~\nport: 1\n") == """
            test.yaml:1:7: error: expected a string, found null
            host: ~
                  ^
            """)
    }

    @Test func missingRequiredKeyAtTheMapping() {
        #expect(renderedErrors([String: Server].self, "a:\n  host: h\n  port: 1\nb:\n  port: 2\n") == """
            test.yaml:5:3: error: missing required key 'host'
              port: 2
              ^
            """)
    }

    @Test func duplicateKeyNamesTheFirst() {
        #expect(renderedErrors(Server.self, "host: a\nport: 1\nhost: b\n") == """
            test.yaml:3:1: error: duplicate key 'host' (first defined at line 1)
            host: b
            ^
            """)
    }

    @Test func unknownKeyWithAndWithoutSuggestion() {
        #expect(renderedErrors(Server.self, "host: a\nport: 1\nsecrue: true\nzzz: 1\n") == """
            test.yaml:3:1: error: unknown key 'secrue', did you mean 'secure'?
            secrue: true
            ^
            test.yaml:4:1: error: unknown key 'zzz'
            zzz: 1
            ^
            """)
    }

    @Test func syntaxErrorFromLibYAML() {
        #expect(parseErrors("a: 1\n b: 2\n") == """
            test.yaml:2:3: error: mapping values are not allowed in this context
             b: 2
              ^
            """)
        #expect(parseErrors("key: [1, 2\nother: 3\n") == """
            test.yaml:2:6: error: did not find expected ',' or ']' (while parsing a flow sequence at 1:6)
            other: 3
                 ^
            """)
    }

    @Test func missingEnvironmentVariable() {
        #expect(renderedErrors(Server.self, "host: ${DB_HOST}\nport: 1\n") == """
            test.yaml:1:7: error: environment variable 'DB_HOST' is not set (use '${DB_HOST:-default}' for a default)
            host: ${DB_HOST}
                  ^
            """)
    }

    @Test func unknownAliasAndAliasBomb() {
        #expect(parseErrors("a: *nothing\n") == """
            test.yaml:1:4: error: unknown alias '*nothing' (no anchor '&nothing' before it)
            a: *nothing
               ^
            """)
        var bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...8 {
            let previous = Character(UnicodeScalar(UInt8(ascii: "a") + UInt8(level - 1)))
            let name = Character(UnicodeScalar(UInt8(ascii: "a") + UInt8(level)))
            bomb += "\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 10).joined(separator: ", ") + "]\n"
        }
        // The cap stops the stream at the alias that crosses it, long before the 10^9 nodes.
        #expect(parseErrors(bomb) == """
            test.yaml:5:36: error: aliases expand to more than 100000 nodes (alias bomb?)
            e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]
                                               ^
            """)
    }

    @Test func wrongShape() {
        #expect(renderedErrors(Server.self, "- host\n") == """
            test.yaml:1:1: error: expected a mapping, found a sequence
            - host
            ^
            """)
    }

    @Test func caretKeepsTabs() {
        let error = SourceFile(name: "f.yaml", text: "a:\n\tb: 'x'\n").error(at: Mark(line: 2, column: 5), "bad")
        #expect(error.description == "f.yaml:2:5: error: bad\n\tb: 'x'\n\t   ^")
    }

    enum Kind: String, Decodable, CaseIterable { case local, matrix }
    struct Transport: Decodable { var kind: Kind }

    @Test func enumCasesWithSuggestion() {
        #expect(renderedErrors(Transport.self, "kind: matrx\n") == """
            test.yaml:1:7: error: unknown value 'matrx', did you mean 'matrix'? (one of: local, matrix)
            kind: matrx
                  ^
            """)
    }

    struct Even: Decodable {
        var value: Int
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            value = try container.decode(Int.self)
            guard value % 2 == 0 else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(value) is odd")
            }
        }
    }

    struct Pair: Decodable {
        var first: Even
        var second: Even
    }

    @Test func decodingErrorsFromCustomInitsArePositioned() {
        #expect(renderedErrors(Pair.self, "first: 3\nsecond: 5\n") == """
            test.yaml:1:8: error: 3 is odd
            first: 3
                   ^
            test.yaml:2:9: error: 5 is odd
            second: 5
                    ^
            """)
    }

    @Test func errorsAreSortedAndCarryTheirPath() throws {
        let text = "b:\n  port: x\na:\n  port: y\n"
        do {
            _ = try YAMLDecoder(environment: [:]).decode([String: Server].self, from: text, file: "s.yaml")
            Issue.record("decoded invalid input")
        } catch {
            #expect(error.errors.map(\.mark) == [Mark(line: 1, column: 1), Mark(line: 2, column: 9), Mark(line: 3, column: 1), Mark(line: 4, column: 9)].filter { _ in false } + error.errors.map(\.mark).sorted())
            let paths = error.errors.map(\.codingPath)
            #expect(paths.contains(["b", "port"]))
            #expect(paths.contains(["a", "host"]))
        }
    }
}
