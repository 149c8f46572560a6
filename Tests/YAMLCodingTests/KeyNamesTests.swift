import Testing
import YAMLCoding

/// `NodeReader.keysPresent(among:)` finds the same keys one lookup per name would, and absent
/// names still serve as "did you mean" suggestions.
@Suite struct KeyNamesTests {
    private static let names = KeyNames(["alpha", "beta", "gamma", "K"])

    private struct Picked: YAMLNodeDecodable, Equatable {
        var present: UInt64
        var alpha: String?
        var gamma: String?

        init(present: UInt64, alpha: String?, gamma: String?) {
            self.present = present
            self.alpha = alpha
            self.gamma = gamma
        }

        init(yaml reader: NodeReader) throws {
            try reader.expectMapping()
            present = reader.keysPresent(among: KeyNamesTests.names)
            alpha = present & KeyNames.bit(0) != 0 ? reader.decodeIfPresent(String.self, forKey: "alpha") : nil
            gamma = present & KeyNames.bit(2) != 0 ? reader.decodeIfPresent(String.self, forKey: "gamma") : nil
            if present & KeyNames.bit(3) != 0 { _ = reader.decodeIfPresent(Int.self, forKey: "K") }
        }
    }

    @Test func findsThePresentNames() throws {
        let value = try YAMLDecoder(environment: [:]).decode(Picked.self, from: "gamma: g\nalpha: a\n", file: "t.yaml")
        #expect(value == Picked(present: KeyNames.bit(0) | KeyNames.bit(2), alpha: "a", gamma: "g"))
    }

    @Test func matchesCanonicallyEqualKeys() throws {
        // The Kelvin sign equals "K" as strings, though not as bytes.
        let value = try YAMLDecoder(environment: [:]).decode(Picked.self, from: "\u{212A}: 1\n", file: "t.yaml")
        #expect(value.present == KeyNames.bit(3))
    }

    @Test func absentNamesAreSuggested() {
        #expect(renderedErrors(Picked.self, "alpha: a\nbeat: b\n") == """
            test.yaml:2:1: error: unknown key 'beat', did you mean 'beta'?
            beat: b
            ^
            """)
    }
}
