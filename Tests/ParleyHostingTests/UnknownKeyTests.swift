import Foundation
import ParleyHosting
import Testing
import YAMLCoding

/// Every keyed type of the config, bot and flow-test schemas refuses a key it does not know, at
/// the key's line and column, as `parley check` reports it. Strictness comes from each type
/// asking for its keys (YAMLCoding reports the ones nobody asked for): a type that reads its
/// mapping another way (as a dictionary, by hand) silently accepts typos. One row per type, and
/// a scan of the schema sources that fails for a type without a row, so a new type is not
/// forgotten.
@Suite struct UnknownKeyTests {
    @Test(arguments: UnknownKeyCase.all)
    func everyKeyedSchemaTypeRejectsAnUnknownKey(_ row: UnknownKeyCase) throws {
        let errors = try row.checkErrors()
        #expect(errors == [row.error])
    }

    @Test func everyDecodableSchemaTypeHasARowOrAReason() throws {
        let declared = try SchemaSources.decodableTypes()
        let covered = Set(UnknownKeyCase.all.map(\.id)).union(UnknownKeyCase.notKeyed.keys)
        #expect(declared.subtracting(covered).sorted() == [], "add a row to UnknownKeyCase.all for each")
        #expect(covered.subtracting(declared).sorted() == [], "rows for types the sources no longer declare")
    }
}

/// One schema type, a minimal document that places it with one key too many (`bogus_key: 1`),
/// and the error `parley check` must print for it.
struct UnknownKeyCase: Sendable, CustomTestStringConvertible {
    /// The declaring file below `Sources/`, and the type as declared there.
    let source: String, type: String
    /// The document's path in the config folder, and its text. The other documents are the
    /// smallest valid ones (a config and a bot `t`; no test file).
    let file: String, text: String
    /// The one error expected, its first line: `file:line:col: error: message`.
    let error: String

    var id: String { "\(source): \(type)" }
    var testDescription: String { type }

    /// Loads a config folder holding the row's document as `parley check` does; the first
    /// line of each error.
    func checkErrors(bot: String = "name: T\nfallback: [ { reply: hi } ]\n") throws -> [String] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-unknown-key-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/bots", withIntermediateDirectories: true)
        let files = ["config.yaml": "bots: bots\n", "bots/t.yaml": bot].merging([file: text]) { $1 }
        for (name, contents) in files {
            try Data(contents.utf8).write(to: URL(fileURLWithPath: folder + "/" + name))
        }
        let loaded = HostLoader.load(configFile: "config.yaml", resolve: { folder + "/" + $0 }, environment: [:])
        return loaded.errors.map { String($0.description.prefix { $0 != "\n" }) }
    }
}
