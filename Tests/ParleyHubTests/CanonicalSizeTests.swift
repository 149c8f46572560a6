import Foundation
import ParleyCore
@testable import ParleyHub
import Testing

@Suite struct CanonicalSizeTests {
    static let exact: [JSONValue] = [
        nil, true, false, 0, -1, 1234567890, .int(.min), .int(.max), "", "plain", "quote \" and \\ backslash",
        "slash / stays", "ünïcødé 日本語 🎉", ["type": 1, "text": "hi"], [1, [2, [3, nil]], ["k": "v"]],
        ["nested": ["deep": ["a": [], "b": [:]]]],
    ]

    @Test(arguments: exact)
    func boundIsExactWithoutDoublesOrControlCharacters(value: JSONValue) {
        #expect(value.canonicalSizeBound() == value.jsonData().count)
        #expect(value.canonicalSizeBound(scanning: false) >= value.jsonData().count)
    }

    @Test(arguments: [JSONValue.double(0.1), .double(-1e300), .double(3), "tab\there", "line\nbreak \u{01}", ["x": [1.5, 2.25]]])
    func boundNeverUnderestimates(value: JSONValue) {
        #expect(value.canonicalSizeBound() >= value.jsonData().count)
        #expect(value.canonicalSizeBound(scanning: false) >= value.canonicalSizeBound())
    }
}
