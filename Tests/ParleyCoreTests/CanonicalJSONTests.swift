import Foundation
import ParleyCore
import Testing

@Suite struct CanonicalJSONTests {
    /// The examples of the Matrix spec's appendix "Canonical JSON", parsed from their text.
    @Test(arguments: [
        ("{}", "{}"),
        (#"{"one": 1, "two": "Two"}"#, #"{"one":1,"two":"Two"}"#),
        (#"{"b": "2", "a": "1"}"#, #"{"a":"1","b":"2"}"#),
        (#"{"b":"2","a":"1"}"#, #"{"a":"1","b":"2"}"#),
        (#"""
        {"auth": {"success": true, "mxid": "@john.doe:example.com", "profile": {"display_name": "John Doe",
          "three_pids": [{"medium": "email", "address": "john.doe@example.org"},
                         {"medium": "msisdn", "address": "123456789"}]}}}
        """#,
         #"{"auth":{"mxid":"@john.doe:example.com","profile":{"display_name":"John Doe","three_pids":[{"address":"john.doe@example.org","medium":"email"},{"address":"123456789","medium":"msisdn"}]},"success":true}}"#),
        (#"{"a": "日本語"}"#, #"{"a":"日本語"}"#),
        (#"{"本": 2, "日": 1}"#, #"{"日":1,"本":2}"#),
        (#"{"a": "\u65E5"}"#, #"{"a":"日"}"#),
        (#"{"a": null}"#, #"{"a":null}"#),
        (#"{"a": -0, "b": 1e10}"#, #"{"a":0,"b":10000000000}"#),
    ])
    func specExamples(input: String, canonical: String) throws {
        #expect(try JSONValue.parse(input).canonicalJSON() == canonical)
    }

    /// Keys by code point: U+FF21 (fullwidth A) after U+00E9 after "z"; an emoji (outside the
    /// BMP) after both, though its UTF-16 surrogates would sort before U+FF21.
    @Test func keysByCodePoint() throws {
        let value: JSONValue = ["\u{FF21}": 1, "z": 2, "é": 3, "😀": 4, "Z": 5, "a\u{0}": 6, "a": 7]
        #expect(try value.canonicalJSON() == "{\"Z\":5,\"a\":7,\"a\\u0000\":6,\"z\":2,\"é\":3,\"Ａ\":1,\"😀\":4}")
    }

    /// Why the compact writer's order is not enough: Swift orders strings by canonical
    /// equivalence, so a decomposed "é" (e + U+0301, bytes 65 CC 81) sorts with the composed
    /// one (C3 A9) there, but before it by code point.
    @Test func keysByCodePointNotByCanonicalEquivalence() throws {
        let value: JSONValue = ["e\u{301}x": 1, "\u{E9}": 2]
        // Compared as bytes: `String.==` is canonical equivalence too.
        #expect(Array(try value.canonicalJSON().utf8) == Array("{\"e\u{301}x\":1,\"\u{E9}\":2}".utf8))
        #expect(Array(value.compactJSON().utf8) == Array("{\"\u{E9}\":2,\"e\u{301}x\":1}".utf8))
    }

    /// The shortest escapes; other control characters as lowercase `\u00xx`; `/` and U+2028 as is.
    @Test func escapes() throws {
        let value: JSONValue = ["s": "\"\\\u{8}\u{C}\n\r\t\u{1}\u{1F}/\u{2028}"]
        #expect(try value.canonicalJSON() == #"{"s":"\"\\\b\f\n\r\t\u0001\u001f/"# + "\u{2028}\"}")
    }

    @Test func numbersOnlyIntegersInRange() throws {
        #expect(try JSONValue.object(["max": .int((1 << 53) - 1), "min": .int(-(1 << 53) + 1)]).canonicalJSON()
            == #"{"max":9007199254740991,"min":-9007199254740991}"#)
        #expect(throws: CanonicalJSONError.self) { try JSONValue.int(1 << 53).canonicalJSON() }
        #expect(throws: CanonicalJSONError.self) { try JSONValue.array([.double(1.5)]).canonicalJSON() }
        #expect(throws: CanonicalJSONError.self) { try JSONValue.object(["x": .double(.nan)]).canonicalJSON() }
        #expect(throws: CanonicalJSONError.self) { try JSONValue.double(1e300).canonicalJSON() }
    }

    /// For ASCII keys and integers the compact writer's bytes are already canonical.
    @Test func compactAgreesOnPlainValues() throws {
        let value: JSONValue = ["user_id": "@a:b", "keys": ["ed25519:D": "x", "curve25519:D": "y"], "n": 3, "l": [true, nil]]
        #expect(try value.canonicalJSON() == value.compactJSON())
    }
}
