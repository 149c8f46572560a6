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

    /// The command's own keys (bits 0 to 2), then the action block's.
    private static let names = KeyNames(["description", "aliases", "args"] + ActionBlock.keyNames)

    /// Reads the command's mapping.
    public init(yaml reader: NodeReader) throws {
        mark = reader.mark
        try reader.expectMapping()
        // Which of its keys and of the actions' keys the mapping has, in one pass over its keys:
        // most of the fifteen are absent, and a lookup each cost more.
        let present = reader.keysPresent(among: Self.names)
        func has(_ index: Int) -> Bool { present & KeyNames.bit(index) != 0 }
        description = has(0) ? reader.decodeIfPresent(Located<String>.self, forKey: "description") : nil
        aliases = (has(1) ? reader.decodeIfPresent([Located<String>].self, forKey: "aliases") : nil) ?? []
        args = (has(2) ? reader.decodeIfPresent([Located<String>].self, forKey: "args") : nil) ?? []
        let block = ActionBlock(reader, present: present >> 3)
        actions = block.items
        issues = block.issues
    }
}
