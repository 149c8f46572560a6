import Testing
import YAMLCoding

/// A decoding run reuses the readers of finished values for the next ones: reuse must never
/// reach a reader a value kept, and must not keep the run alive once it is over.
@Suite struct NodeReaderReuseTests {
    /// Remembers the last reader it was read with (weakly, to see when it is freed).
    struct Item: YAMLNodeDecodable {
        nonisolated(unsafe) static weak var lastReader: NodeReader?
        var name: String

        init(yaml reader: NodeReader) throws {
            try reader.expectMapping()
            name = try reader.decode(String.self, forKey: "name")
            Item.lastReader = reader
        }
    }

    struct Items: YAMLNodeDecodable {
        var items: [Item]
        init(yaml reader: NodeReader) throws {
            try reader.expectMapping()
            items = try reader.decode([Item].self, forKey: "items")
        }
    }

    /// Keeps its reader, as a value may (the reader must then stay its own).
    final class Keeper: YAMLNodeDecodable, @unchecked Sendable {
        let reader: NodeReader
        init(yaml reader: NodeReader) throws {
            self.reader = reader
            try reader.expectMapping()
            _ = reader.contains("name")
        }
    }

    struct Keepers: YAMLNodeDecodable {
        var keepers: [Keeper]
        var items: [Item]
        init(yaml reader: NodeReader) throws {
            try reader.expectMapping()
            keepers = try reader.decode([Keeper].self, forKey: "keepers")
            items = try reader.decode([Item].self, forKey: "items")
        }
    }

    @Test func readersAreFreedWhenTheRunEnds() throws {
        let decoded = try YAMLDecoder(environment: [:]).decode(Items.self, from: "items:\n  - name: a\n  - name: b\n  - name: c\n", file: "t.yaml")
        #expect(decoded.items.map(\.name) == ["a", "b", "c"])
        #expect(Item.lastReader == nil)
    }

    @Test func aKeptReaderStillReadsItsOwnNode() throws {
        let text = "keepers:\n  - name: first\n  - name: second\nitems:\n  - name: a\n  - name: b\n"
        let decoded = try YAMLDecoder(environment: [:]).decode(Keepers.self, from: text, file: "t.yaml")
        #expect(decoded.keepers.map { $0.reader.mark.line } == [2, 3])
        #expect(decoded.keepers.map(\.reader.codingPath) == [["keepers", "0"], ["keepers", "1"]])
    }

    @Test func errorsOfLaterValuesHaveTheirOwnPaths() {
        let text = "items:\n  - name: a\n  - name: [b]\n  - nam: c\n"
        #expect(renderedErrors(Items.self, text) == """
            test.yaml:3:11: error: expected a string, found a sequence
              - name: [b]
                      ^
            test.yaml:4:5: error: missing required key 'name'
              - nam: c
                ^
            test.yaml:4:5: error: unknown key 'nam', did you mean 'name'?
              - nam: c
                ^
            """)
        do {
            _ = try YAMLDecoder(environment: [:]).decode(Items.self, from: text, file: "test.yaml")
            Issue.record("decoded despite the errors")
        } catch {
            #expect(error.errors.map(\.codingPath) == [["items", "1", "name"], ["items", "2", "name"], ["items", "2", "nam"]])
        }
    }
}
