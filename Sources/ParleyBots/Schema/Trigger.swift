import YAMLCoding

/// A trigger and its actions: on free text, a regex (`match`) or a case-insensitive substring
/// (`contains`); or on a user's reaction to one of the bot's messages (`reaction`, an emoji).
public struct Trigger: YAMLNodeDecodable, Sendable {
    /// PCRE2 pattern; named groups become `{{match.NAME}}`.
    public var match: Located<String>?
    /// Case-insensitive substring.
    public var contains: Located<String>?
    /// An emoji: the trigger answers a user's reaction with it to one of the bot's messages.
    public var reaction: Located<String>?
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
        reaction = reader.decodeIfPresent(Located<String>.self, forKey: "reaction")
        let block = ActionBlock(reader)
        actions = block.items
        issues = block.issues
    }
}
