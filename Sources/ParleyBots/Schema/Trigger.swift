import YAMLCoding

/// A free-text trigger: a regex (`match`) or a case-insensitive substring (`contains`), and actions.
public struct Trigger: Decodable, Sendable {
    /// PCRE2 pattern; named groups become `{{match.NAME}}`.
    public var match: Located<String>?
    /// Case-insensitive substring.
    public var contains: Located<String>?
    /// What the trigger does, in order.
    public var actions: [ActionItem]
    /// Where the trigger's mapping starts.
    public var mark: Mark
    var issues: [SchemaIssue]

    public init(from decoder: any Decoder) throws {
        mark = decoder.yamlMark ?? Mark(line: 0, column: 0)
        let container = try decoder.container(keyedBy: SchemaKey.self)
        let keys = KeyPresence(decoder)
        match = try keys.decodeIfPresent(Located<String>.self, "match", in: container)
        contains = try keys.decodeIfPresent(Located<String>.self, "contains", in: container)
        let block = try ActionBlock(container, at: mark, keys: keys)
        actions = block.items
        issues = block.issues
    }
}
