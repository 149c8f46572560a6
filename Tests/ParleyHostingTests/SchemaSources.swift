import Foundation

/// The package's own schema sources, read as text: which types they declare `Decodable`.
enum SchemaSources {
    /// Where the config, bot and flow-test schemas live, below `Sources/`: the bot schema, the
    /// flow-test module, and the hosting module for the `transport:` sections.
    static let folders = ["ParleyBots/Schema", "ParleyFlowTest", "ParleyHosting"]

    /// Every type declared (or extended) as `Decodable`, `Codable` or `YAMLNodeDecodable` in
    /// `folders`, as `"Folder/File.swift: Type"` — synthesized conformances included, which a
    /// search for `CodingKeys` would miss.
    static func decodableTypes(sourcesRoot: URL = packageSources) throws -> Set<String> {
        let declaration = try Regex(#"\b(?:struct|class|enum|actor|extension)\s+(\w+)(?:<[^>{]*>)?\s*:([^{]*)\{"#)
        let decodable = try Regex(#"\b(?:YAMLNodeDecodable|Decodable|Codable)\b"#)
        var found: Set<String> = []
        for folder in folders {
            let root = sourcesRoot.appendingPathComponent(folder)
            guard let files = FileManager.default.enumerator(atPath: root.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                // Comment lines may show example declarations.
                let code = text.split(separator: "\n", omittingEmptySubsequences: false)
                    .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
                    .joined(separator: "\n")
                for match in code.matches(of: declaration) {
                    guard let name = match.output[1].substring, let inherited = match.output[2].substring,
                          inherited.contains(decodable) else { continue }
                    found.insert("\(folder)/\(file): \(name)")
                }
            }
        }
        return found
    }

    /// `Sources/` of this package, found from this file's path.
    static let packageSources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources")
}
