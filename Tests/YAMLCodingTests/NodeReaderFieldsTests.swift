import Testing
import YAMLCoding

/// `forEachString(skipping:)` reads free-form fields exactly as `forEachKey` followed by
/// `decode(Located<String>.self, forKey:)` does: same values, order, errors and unknown keys.
@Suite struct NodeReaderFieldsTests {
    struct Field: Equatable {
        var name: String
        var value: Located<String>
        var keyMark: Mark
    }

    static let named = KeyNames(["title", "K"])

    /// Reads fields by position.
    struct Card: YAMLNodeDecodable {
        var title: Located<String>?
        var fields: [Field] = []
        init(yaml reader: NodeReader) throws {
            try reader.expectMapping()
            title = reader.decodeIfPresent(Located<String>.self, forKey: "title")
            try reader.forEachString(skipping: NodeReaderFieldsTests.named) { name, keyMark, value in
                fields.append(Field(name: name, value: value, keyMark: keyMark))
            }
        }
    }

    /// Reads fields by name, the way `forEachString` replaces.
    struct ReferenceCard: YAMLNodeDecodable {
        var title: Located<String>?
        var fields: [Field] = []
        init(yaml reader: NodeReader) throws {
            try reader.expectMapping()
            title = reader.decodeIfPresent(Located<String>.self, forKey: "title")
            try reader.forEachKey { name, keyMark, _ in
                guard name != "title", name != "K" else { return }
                fields.append(Field(name: name, value: try reader.decode(Located<String>.self, forKey: name), keyMark: keyMark))
            }
        }
    }

    struct Cards<C: YAMLNodeDecodable>: YAMLNodeDecodable {
        var cards: [C]
        init(yaml reader: NodeReader) throws {
            try reader.expectMapping()
            cards = try reader.decode([C].self, forKey: "cards")
        }
    }

    @Test func fieldsReadAsByName() throws {
        let text = "cards:\n  - { title: T, a: \"1\", b: two }\n  - { c: d }\n  - {}\n"
        let read = try YAMLDecoder(environment: [:]).decode(Cards<Card>.self, from: text, file: "t.yaml")
        let reference = try YAMLDecoder(environment: [:]).decode(Cards<ReferenceCard>.self, from: text, file: "t.yaml")
        #expect(read.cards.map(\.fields) == reference.cards.map(\.fields))
        #expect(read.cards.map { $0.fields.map(\.name) } == [["a", "b"], ["c"], []])
        #expect(read.cards[0].fields.map(\.value.value) == ["1", "two"])
    }

    @Test func errorsAsByName() throws {
        // The Kelvin sign is skipped as "K" is (canonically equal), so it is never asked about;
        // `[1]` is no scalar key.
        let text = "cards:\n  - { title: T, a: [x], b: ok, c: ~, d: { e: f } }\n  - { [1]: x, g: \"${MISSING}\", \u{212A}: 3 }\n"
        let read = try #require(renderedErrors(Cards<Card>.self, text))
        #expect(read == renderedErrors(Cards<ReferenceCard>.self, text))
        #expect(read.contains("test.yaml:2:20: error: expected a string, found a sequence"))
        #expect(read.contains("error: unknown key '\u{212A}'"))
        do {
            _ = try YAMLDecoder(environment: [:]).decode(Cards<Card>.self, from: text, file: "test.yaml")
            Issue.record("decoded despite the errors")
        } catch {
            let paths = error.errors.map(\.codingPath)
            #expect(paths.contains(["cards", "0", "a"]))
            #expect(paths.contains(["cards", "0", "d"]))
        }
    }
}
