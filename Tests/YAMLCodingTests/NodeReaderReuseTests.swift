import Testing
import YAMLCoding

/// A decoding run reuses the readers of finished values for the next ones: reuse must never
/// reach a reader a value kept, and must not keep the run alive once it is over.
/// Serialized: `Item.lastReader` is global, and another test decoding `Item` at the same time
/// holds its own reader there until its run ends.
@Suite(.serialized) struct NodeReaderReuseTests {
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
        expectErrorsOfThreeItems(Items.self, under: "items")
    }

    /// The errors of a list `key` of items `a`, `[b]` and one with `nam:`: their messages,
    /// positions and paths (`key`, then the index).
    private func expectErrorsOfThreeItems<T: Decodable>(_ type: T.Type, under key: String) {
        let text = "\(key):\n  - name: a\n  - name: [b]\n  - nam: c\n"
        #expect(renderedErrors(T.self, text) == """
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
            _ = try YAMLDecoder(environment: [:]).decode(T.self, from: text, file: "test.yaml")
            Issue.record("decoded despite the errors")
        } catch {
            #expect(error.errors.map(\.codingPath) == [[key, "1", "name"], [key, "2", "name"], [key, "2", "nam"]])
        }
    }

    // MARK: - Readers made below other readers (located values, a node's own list)

    struct KeeperList: YAMLNodeDecodable {
        var keepers: [Keeper]
        init(yaml reader: NodeReader) throws { keepers = try reader.decode([Keeper].self) }
    }

    struct Nested: YAMLNodeDecodable {
        var list: Located<KeeperList>?
        var one: Located<Keeper>?
        var items: [Item]
        init(yaml reader: NodeReader) throws {
            try reader.expectMapping()
            list = reader.decodeIfPresent(Located<KeeperList>.self, forKey: "list")
            one = reader.decodeIfPresent(Located<Keeper>.self, forKey: "one")
            items = try reader.decode([Item].self, forKey: "items")
        }
    }

    @Test func keptReadersBelowOtherReadersKeepTheirPaths() throws {
        let text = "list:\n  - name: first\n  - name: second\none:\n  name: third\nitems:\n  - name: a\n  - name: b\n"
        let decoded = try YAMLDecoder(environment: [:]).decode(Nested.self, from: text, file: "t.yaml")
        let list = try #require(decoded.list)
        #expect(list.mark.line == 2)
        #expect(list.value.keepers.map(\.reader.codingPath) == [["list", "0"], ["list", "1"]])
        #expect(list.value.keepers.map { $0.reader.mark.line } == [2, 3])
        let one = try #require(decoded.one)
        #expect(one.mark.line == 5)
        #expect(one.value.reader.codingPath == ["one"])
        #expect(decoded.items.map(\.name) == ["a", "b"])
    }

    struct ItemList: YAMLNodeDecodable {
        var items: [Item]
        init(yaml reader: NodeReader) throws { items = try reader.decode([Item].self) }
    }

    struct NestedItems: YAMLNodeDecodable {
        var list: Located<ItemList>?
        init(yaml reader: NodeReader) throws {
            try reader.expectMapping()
            list = reader.decodeIfPresent(Located<ItemList>.self, forKey: "list")
        }
    }

    @Test func errorsBelowOtherReadersHaveTheirPaths() {
        expectErrorsOfThreeItems(NestedItems.self, under: "list")
        do {
            _ = try YAMLDecoder(environment: [:]).decode(NestedItems.self, from: "list: text\n", file: "test.yaml")
            Issue.record("decoded despite the errors")
        } catch {
            #expect(error.errors.map(\.message) == ["expected a sequence, found 'text'"])
            #expect(error.errors.map(\.codingPath) == [["list"]])
            #expect(error.errors.map(\.mark) == [Mark(line: 1, column: 7)])
        }
    }
}
