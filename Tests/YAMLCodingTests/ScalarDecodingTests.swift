import Testing
import YAMLCoding

@Suite struct ScalarDecodingTests {
    struct Box<T: Decodable & Sendable>: Decodable, Sendable { var v: T }

    func decode<T: Decodable & Sendable>(_ type: T.Type, _ value: String, environment: [String: String] = [:]) throws(YAMLErrors) -> T {
        try YAMLDecoder(environment: environment).decode(Box<T>.self, from: "v: \(value)\n", file: "t.yaml").v
    }

    @Test func numbersAreTypedByTheSwiftType() throws {
        #expect(try decode(Int.self, "42") == 42)
        #expect(try decode(Int.self, "-7") == -7)
        #expect(try decode(Int.self, "0x1F") == 31)
        #expect(try decode(Int.self, "0o17") == 15)
        #expect(try decode(Int64.self, "9223372036854775807") == .max)
        #expect(try decode(UInt8.self, "255") == 255)
        #expect(try decode(UInt64.self, "18446744073709551615") == .max)
        #expect(try decode(Int16.self, "+12") == 12)
        #expect(try decode(Double.self, "1.5e3") == 1500)
        #expect(try decode(Double.self, "42") == 42)
        #expect(try decode(Double.self, "-.inf") == -.infinity)
        #expect(try decode(Double.self, ".nan").isNaN)
        #expect(try decode(Float.self, "0.25") == 0.25)
    }

    @Test(arguments: ["inf", "nan", "0x1p3", "1_000", "--1", "0x", ""])
    func notNumbers(text: String) {
        #expect(throws: YAMLErrors.self) { try decode(Double.self, text == "" ? "''" : text) }
        #expect(throws: YAMLErrors.self) { try decode(Int.self, text == "" ? "''" : text) }
    }

    @Test func stringsAcceptAnyNonNullScalar() throws {
        #expect(try decode(String.self, "42") == "42")
        #expect(try decode(String.self, "\"42\"") == "42")
        #expect(try decode(String.self, "true") == "true")
        #expect(try decode(String.self, "yes") == "yes")
        #expect(try decode(String.self, "'~'") == "~")
        #expect(try decode(String.self, "3.0") == "3.0")
        #expect(throws: YAMLErrors.self) { try decode(String.self, "~") }
        #expect(throws: YAMLErrors.self) { try decode(String.self, "[a]") }
    }

    @Test(arguments: ["yes", "no", "on", "off", "True", "1", "'true'"])
    func booleansRejectEverythingButTrueAndFalse(text: String) {
        #expect(throws: YAMLErrors.self) { try decode(Bool.self, text) }
        #expect(throws: Never.self) { try decode(String.self, text) }
    }

    @Test func booleans() throws {
        #expect(try decode(Bool.self, "true"))
        #expect(try !decode(Bool.self, "false"))
    }

    @Test(arguments: ["~", "null", "NULL", "", "Null", "!!null x", "!!null ''"])
    func nullsAreNilForOptionals(text: String) throws {
        #expect(try decode(Int?.self, text) == nil)
        #expect(try decode(String?.self, text) == nil)
        #expect(throws: YAMLErrors.self) { try decode(Int.self, text) }
    }

    /// Null spelled otherwise, quoted or tagged as something else, is a string.
    @Test(arguments: [("'null'", "null"), ("\"~\"", "~"), ("nul", "nul"), ("NuLL", "NuLL"), ("!!str null", "null"), ("nulls", "nulls")])
    func nearNullsAreStrings(text: String, expected: String) throws {
        #expect(try decode(String?.self, text) == expected)
    }

    @Test func missingOptionalKeyIsNil() throws {
        struct Maybe: Decodable { var a: Int?; var b: [String]? }
        let value = try YAMLDecoder(environment: [:]).decode(Maybe.self, from: "a: 1\n", file: "t.yaml")
        #expect(value.a == 1)
        #expect(value.b == nil)
    }

    @Test(arguments: [
        ("${HOST}", "db.local"),
        ("\"${HOST}:${PORT}\"", "db.local:5432"),
        ("${MISSING:-fallback}", "fallback"),
        ("${EMPTY:-fallback}", "fallback"),
        ("${EMPTY}", ""),
        ("${MISSING:-}", ""),
        ("'costs $5'", "costs $5"),
        ("'$${HOST} stays'", "${HOST} stays"),
        ("'a $$ b'", "a $$ b"),
        ("|\n  multi ${HOST}\n", "multi db.local\n"),
        // `$` in the first or the third eight-byte word of the text (`$` is noted a word at a
        // time while the tree is built).
        ("${HOST} is the host of the database", "db.local is the host of the database"),
        ("a long prefix, then ${HOST}", "a long prefix, then db.local"),
        ("'twenty-four bytes here: $${HOST}'", "twenty-four bytes here: ${HOST}"),
    ])
    func environmentSubstitution(text: String, expected: String) throws {
        let environment = ["HOST": "db.local", "PORT": "5432", "EMPTY": ""]
        #expect(try decode(String.self, text, environment: environment) == expected)
    }

    @Test func substitutionFeedsNumbers() throws {
        #expect(try decode(Int.self, "${PORT:-8080}") == 8080)
        #expect(try decode(Int.self, "${PORT}", environment: ["PORT": "5432"]) == 5432)
    }

    @Test func keysAreNotSubstituted() throws {
        let decoded = try YAMLDecoder(environment: ["K": "x"]).decode([String: String].self, from: "${K}: ${K}\n", file: "t.yaml")
        #expect(decoded == ["${K}": "x"])
    }

    @Test func substitutionErrors() {
        #expect(renderedErrors(Box<String>.self, "v: \"${UNCLOSED\"\n") == """
            test.yaml:1:4: error: unterminated '${' (write '$${' for a literal '${')
            v: "${UNCLOSED"
               ^
            """)
        #expect(renderedErrors(Box<String>.self, "v: ${1BAD}\n") == """
            test.yaml:1:4: error: invalid environment variable name '1BAD' in '${1BAD}'
            v: ${1BAD}
               ^
            """)
    }
}
