import YAMLCoding

/// One step of a flow: actions, an optional question (`ask`), and where to go next.
public struct Step: YAMLNodeDecodable, Sendable {
    /// Run when the step is entered.
    public var actions: [ActionItem]
    /// Wait for the user's answer before going on.
    public var ask: Ask?
    /// The next step (`STEP`, `FLOW.STEP` or `end`); default: the conversation leaves the flow.
    public var next: Located<String>?
    /// Where the step's mapping starts.
    public var mark: Mark
    var issues: [SchemaIssue]

    /// Reads the step's mapping.
    public init(yaml reader: NodeReader) throws {
        mark = reader.mark
        try reader.expectMapping()
        let block = ActionBlock(reader)
        actions = block.items
        issues = block.issues
        ask = reader.decodeIfPresent(Ask.self, forKey: "ask")
        next = reader.decodeIfPresent(Located<String>.self, forKey: "next")
        if let ask { issues += ask.onTimeout?.value.issues ?? [] }
    }
}
