import YAMLCoding

/// A command (`/name args…`): its help text, aliases, positional args and actions.
public struct Command: Decodable, Sendable {
    /// Shown in `{{help}}`.
    public var description: Located<String>?
    /// Other names that run the same command.
    public var aliases: [Located<String>]
    /// Positional argument names; the last takes the rest of the line.
    public var args: [Located<String>]
    /// What the command does, in order.
    public var actions: [ActionItem]
    /// Where the command's mapping starts.
    public var mark: Mark
    var issues: [SchemaIssue]

    public init(from decoder: any Decoder) throws {
        mark = decoder.yamlMark ?? Mark(line: 0, column: 0)
        let container = try decoder.container(keyedBy: SchemaKey.self)
        let keys = KeyPresence(decoder)
        description = try keys.decodeIfPresent(Located<String>.self, "description", in: container)
        aliases = try keys.decodeIfPresent([Located<String>].self, "aliases", in: container) ?? []
        args = try keys.decodeIfPresent([Located<String>].self, "args", in: container) ?? []
        let block = try ActionBlock(container, at: mark, keys: keys)
        actions = block.items
        issues = block.issues
    }
}
