import Testing
import YAMLCoding

/// Keys are compared as UTF-8 bytes where that gives the same answer as comparing strings,
/// and as strings (canonical equivalence) where it does not.
@Suite struct KeyComparisonTests {
    /// A mapping of `count` keys `k0`, `k1`, … with `extra` lines added at the end.
    private func mapping(_ count: Int, then extra: [String]) -> String {
        ((0..<count).map { "k\($0): \($0)" } + extra).joined(separator: "\n") + "\n"
    }

    @Test func duplicatesInALargeMappingNameTheFirst() {
        #expect(parseErrors(mapping(20, then: ["k3: again", "k17: again", "k3: third"])) == """
            test.yaml:21:1: error: duplicate key 'k3' (first defined at line 4)
            k3: again
            ^
            test.yaml:22:1: error: duplicate key 'k17' (first defined at line 18)
            k17: again
            ^
            test.yaml:23:1: error: duplicate key 'k3' (first defined at line 4)
            k3: third
            ^
            """)
    }

    @Test(arguments: [2, 20])
    func canonicallyEqualKeysAreDuplicates(size: Int) {
        // "é" precomposed, then as "e" + combining acute accent: equal strings, different bytes.
        let errors = parseErrors(mapping(size, then: ["caf\u{E9}: 1", "cafe\u{301}: 2"]))
        #expect(errors?.contains("error: duplicate key 'cafe\u{301}' (first defined at line \(size + 1))") == true)
    }

    @Test(arguments: [("", "-and-more-text"), ("a-much-longer-", "-key-end"), ("eight-by", "")])
    func canonicallyEqualLongKeysAreDuplicates(prefix: String, suffix: String) {
        // The non-ASCII bytes in the first or the third eight-byte word of the key, or after the
        // last whole word (scalars are copied and checked for ASCII a word at a time).
        let first = prefix + "caf\u{E9}" + suffix, second = prefix + "cafe\u{301}" + suffix
        let errors = parseErrors(mapping(2, then: ["\(first): 1", "\(second): 2"]))
        #expect(errors?.contains("error: duplicate key '\(second)' (first defined at line 3)") == true)
    }

    private struct Kelvin: Decodable, Equatable {
        var K: Int
        var other: Int
    }

    @Test func aKeyMatchesItsCanonicalEquivalent() throws {
        // The Kelvin sign is canonically equivalent to "K", as a Swift string comparison says.
        let value = try YAMLDecoder(environment: [:]).decode(Kelvin.self, from: "other: 2\n\u{212A}: 1\n", file: "t.yaml")
        #expect(value == Kelvin(K: 1, other: 2))
    }

    @Test func absentKeysAreStillSuggestedAfterByteLookups() {
        #expect(renderedErrors(Kelvin.self, "K: 1\nother: 2\nothr: 3\n") == """
            test.yaml:3:1: error: unknown key 'othr', did you mean 'other'?
            othr: 3
            ^
            """)
    }
}
