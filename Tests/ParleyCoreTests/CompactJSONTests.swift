import Foundation
import ParleyCore
import Testing

@Suite struct CompactJSONTests {
    /// The writer orders objects of one, two and more keys itself and copies strings that
    /// need no escape in one go: every path must match Foundation's sorted-keys output.
    @Test(arguments: [
        JSONValue.object([:]), ["only": "one"], ["z": 1, "a": 2], ["a": 1, "z": 2], ["m": true, "b": nil, "x": ["q": "r", "c": "d"]],
        "plain text", "", "quote \" and backslash \\", "control \u{01} and \u{1F} end", "née ✓ /", ["k\"ey": "v\\al", "\n": "\t"],
    ] as [JSONValue])
    func matchesTheFoundationEncoder(value: JSONValue) {
        #expect(value.compactJSON() == value.jsonString())
        #expect(value.encodedByteCount == value.compactJSON().utf8.count)
    }
}
