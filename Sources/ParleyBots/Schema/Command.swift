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
        description = try container.decodeIfPresent(Located<String>.self, forKey: SchemaKey("description"))
        aliases = try container.decodeIfPresent([Located<String>].self, forKey: SchemaKey("aliases")) ?? []
        args = try container.decodeIfPresent([Located<String>].self, forKey: SchemaKey("args")) ?? []
        let block = try ActionBlock(container, at: mark)
        actions = block.items
        issues = block.issues
    }
}

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
        match = try container.decodeIfPresent(Located<String>.self, forKey: SchemaKey("match"))
        contains = try container.decodeIfPresent(Located<String>.self, forKey: SchemaKey("contains"))
        let block = try ActionBlock(container, at: mark)
        actions = block.items
        issues = block.issues
    }
}

/// One step of a flow: actions, an optional question (`ask`), and where to go next.
public struct Step: Decodable, Sendable {
    /// Run when the step is entered.
    public var actions: [ActionItem]
    /// Wait for the user's answer before going on.
    public var ask: Ask?
    /// The next step (`STEP`, `FLOW.STEP` or `end`); default: the conversation leaves the flow.
    public var next: Located<String>?
    /// Where the step's mapping starts.
    public var mark: Mark
    var issues: [SchemaIssue]

    public init(from decoder: any Decoder) throws {
        mark = decoder.yamlMark ?? Mark(line: 0, column: 0)
        let container = try decoder.container(keyedBy: SchemaKey.self)
        let block = try ActionBlock(container, at: mark)
        actions = block.items
        issues = block.issues
        ask = try container.decodeIfPresent(Ask.self, forKey: SchemaKey("ask"))
        next = try container.decodeIfPresent(Located<String>.self, forKey: SchemaKey("next"))
        if let ask { issues += ask.onTimeout?.value.issues ?? [] }
    }
}

/// `ask:` — wait for the user's next message in this conversation.
public struct Ask: Decodable, Sendable {
    /// Variable that receives the answer (`{{vars.NAME}}`).
    public var save: Located<String>?
    /// PCRE2 pattern the answer must match; named groups are saved as variables too.
    public var match: Located<String>?
    /// Sent when the answer does not match (template); the step then waits again.
    public var retry: Located<String>?
    /// How long to wait (`10m`); default: forever.
    public var timeout: Located<String>?
    /// Run when the timeout passes.
    public var onTimeout: Located<ActionList>?

    enum CodingKeys: String, CodingKey {
        case save, match, retry, timeout, onTimeout = "on_timeout"
    }

    /// The parsed timeout, if given and valid.
    public var timeoutDuration: Duration? { timeout.flatMap { try? DurationFormat.parse($0.value) } }
}
