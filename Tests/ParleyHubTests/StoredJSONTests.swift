import Foundation
import ParleyCore
@testable import ParleyHub
import Testing

/// The hub stores payloads with ParleyCore's `compactJSON()`: it must read back as what was sent.
@Suite struct StoredJSONTests {
    @Test(arguments: CanonicalSizeTests.exact + ["tab\there", "line\nbreak \u{01}\u{1F}", ["b": 1, "a": ["d": 2, "c": 3]]])
    func matchesTheFoundationEncoderByteForByte(value: JSONValue) {
        #expect(value.compactJSON() == value.jsonString())
    }

    @Test(arguments: [JSONValue.double(0.1), .double(-1e300), .double(3), .double(.infinity), ["x": [1.5, 2.25]]])
    func doublesParseBackToTheSameValue(value: JSONValue) throws {
        let parsed = try JSONValue.parse(Data(value.compactJSON().utf8))
        #expect(parsed.jsonString() == value.jsonString())
    }
}
