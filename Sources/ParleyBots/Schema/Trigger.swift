import YAMLCoding

/// A free-text trigger: a regex (`match`) or a case-insensitive substring (`contains`), and actions.
public struct Trigger: YAMLNodeDecodable, Sendable {
    /// PCRE2 pattern; named groups become `{{match.NAME}}`.
    public var match: Located<String>?
    /// Case-insensitive substring.
    public var contains: Located<String>?
    /// What the trigger does, in order.
    public var actions: [ActionItem]
    /// Where the trigger's mapping starts.
    public var mark: Mark
    var issues: [SchemaIssue]

    /// Reads the trigger's mapping.
    public init(yaml reader: NodeReader) throws {
        mark = reader.mark
        try reader.expectMapping()
        match = reader.decodeIfPresent(Located<String>.self, forKey: "match")
        contains = reader.decodeIfPresent(Located<String>.self, forKey: "contains")
        let block = ActionBlock(reader)
        actions = block.items
        issues = block.issues
    }
}
