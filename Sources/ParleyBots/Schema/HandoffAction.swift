import YAMLCoding

/// `handoff:` — pass the conversation to a queue of human agents.
public struct HandoffAction: Decodable, Sendable {
    /// The agents' queue name.
    public var queue: Located<String>
    /// A note for the agent (template).
    public var note: Located<String>?
}
