import Foundation
import ParleyCore
@testable import ParleyHub
import Testing

@Suite struct FastEncodingTests {
    @Test(arguments: CanonicalSizeTests.exact + ["tab\there", "line\nbreak \u{01}\u{1F}", ["b": 1, "a": ["d": 2, "c": 3]]])
    func matchesTheFoundationEncoderByteForByte(value: JSONValue) {
        #expect(value.fastJSONString() == value.jsonString())
    }

    @Test(arguments: [JSONValue.double(0.1), .double(-1e300), .double(3), .double(.infinity), ["x": [1.5, 2.25]]])
    func doublesParseBackToTheSameValue(value: JSONValue) throws {
        let parsed = try JSONValue.parse(Data(value.fastJSONString().utf8))
        #expect(parsed.jsonString() == value.jsonString())
    }
}
