import YAMLCoding

/// `handoff:` — pass the conversation to a queue of human agents.
public struct HandoffAction: YAMLNodeDecodable, Sendable {
    /// The agents' queue name.
    public var queue: Located<String>
    /// A note for the agent (template).
    public var note: Located<String>?

    /// Reads `queue` (required) and `note`.
    public init(yaml reader: NodeReader) throws {
        try reader.expectMapping()
        queue = try reader.decode(Located<String>.self, forKey: "queue")
        note = reader.decodeIfPresent(Located<String>.self, forKey: "note")
    }
}
