import Foundation
import ParleyCore
import Testing

/// `JSONValue.parse`, the hand-written parser every homeserver answer goes through.
@Suite struct JSONParsingTests {
    @Test func everyKindOfValue() throws {
        let value = try JSONValue.parse(#" {"a": [1, -2, 3.5, 1e3, -0, true, false, null], "b": {"c": "d"}, "e": ""} "#)
        #expect(value == ["a": [1, -2, 3.5, .double(1000), 0, true, false, nil], "b": ["c": "d"], "e": ""])
        #expect(try JSONValue.parse("42") == 42)
        #expect(try JSONValue.parse("9223372036854775807") == .int(.max))
        #expect(try JSONValue.parse("9223372036854775808") == .double(9223372036854775808))
        #expect(try JSONValue.parse("[]") == [])
        #expect(try JSONValue.parse("{}") == [:])
    }

    @Test func escapesAndUnicode() throws {
        #expect(try JSONValue.parse(#""a\"b\\c\/d\b\f\n\r\t""#) == "a\"b\\c/d\u{8}\u{c}\n\r\t")
        #expect(try JSONValue.parse(#""\u00e9\u4e2d\ud83d\ude00 é""#) == "é中😀 é")
        #expect(try JSONValue.parse(#""plain""#) == "plain")
    }

    /// What `compactJSON()` writes parses back to the same value.
    @Test func writingAndParsingRoundTrip() throws {
        let value: JSONValue = ["text": "line\none \"quoted\" \u{1} 😀", "n": [1, 2.5, -3], "ok": true, "none": nil, "deep": [["x": []]]]
        #expect(try JSONValue.parse(value.compactJSON()) == value)
        #expect(try JSONValue.parse(value.jsonData()) == value)
    }

    @Test(arguments: [
        ("", "unexpected end at byte 0") as (String, String),
        ("{", "expected a member name at byte 1"),
        (#"{"a" 1}"#, "expected ':' at byte 5"),
        ("[1 2]", "expected ',' or ']' at byte 3"),
        ("[1,]", "unexpected character at byte 3"),
        ("tru", "unexpected end at byte 0"),
        ("nul1", "unexpected character at byte 0"),
        ("01", "a number with a leading zero at byte 1"),
        ("1.", "a number without digits after '.' at byte 2"),
        ("-", "a number without digits at byte 1"),
        ("1e", "a number without exponent digits at byte 2"),
        ("1e999", "a number out of range at byte 5"),
        (#""abc"#, "unterminated string at byte 4"),
        ("\"a\u{1}\"", "a control character in a string at byte 2"),
        (#""\x""#, "an invalid escape at byte 2"),
        (#""\ud83d""#, #"a lone surrogate in a \u escape at byte 7"#),
        (#""\ude00""#, #"a lone surrogate in a \u escape at byte 7"#),
        (#""\u12""#, #"an incomplete \u escape at byte 3"#),
        ("1 2", "unexpected text after the value at byte 2"),
    ])
    func invalidJSONNamesTheByteAtFault(text: String, reason: String) {
        let error = #expect(throws: ParleyError.self) { try JSONValue.parse(text) }
        #expect(error?.code == .invalidContent)
        #expect(error?.message == "invalid JSON: \(reason)")
    }

    @Test func invalidUTF8IsRefused() {
        let bytes = Data([0x22, 0x61, 0xFF, 0x22])
        let error = #expect(throws: ParleyError.self) { try JSONValue.parse(bytes) }
        #expect(error?.message == "invalid JSON: invalid UTF-8 in a string at byte 3")
    }

    /// Hostile nesting cannot overflow the stack: 512 levels parse, 513 are refused.
    @Test func nestingIsLimited() throws {
        #expect(try JSONValue.parse(String(repeating: "[", count: 512) + String(repeating: "]", count: 512)) != nil)
        let error = #expect(throws: ParleyError.self) {
            try JSONValue.parse(String(repeating: "[", count: 100_000))
        }
        #expect(error?.message == "invalid JSON: nested more than 512 levels deep at byte 512")
    }
}
