import YAMLCoding

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
        let keys = KeyPresence(decoder)
        let block = try ActionBlock(container, at: mark, keys: keys)
        actions = block.items
        issues = block.issues
        ask = try keys.decodeIfPresent(Ask.self, "ask", in: container)
        next = try keys.decodeIfPresent(Located<String>.self, "next", in: container)
        if let ask { issues += ask.onTimeout?.value.issues ?? [] }
    }
}
