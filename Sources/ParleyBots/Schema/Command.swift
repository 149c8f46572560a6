import YAMLCoding

/// A command (`/name args…`): its help text, aliases, positional args and actions.
public struct Command: YAMLNodeDecodable, Sendable {
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

    /// Reads the command's mapping.
    public init(yaml reader: NodeReader) throws {
        mark = reader.mark
        try reader.expectMapping()
        description = reader.decodeIfPresent(Located<String>.self, forKey: "description")
        aliases = reader.decodeIfPresent([Located<String>].self, forKey: "aliases") ?? []
        args = reader.decodeIfPresent([Located<String>].self, forKey: "args") ?? []
        let block = ActionBlock(reader)
        actions = block.items
        issues = block.issues
    }
}
