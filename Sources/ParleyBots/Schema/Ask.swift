import YAMLCoding

/// `ask:` — wait for the user's next message in this conversation (or, with `reactions`, a
/// reaction to one of the bot's messages here).
public struct Ask: YAMLNodeDecodable, Sendable {
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
    /// Emojis that answer too: a user's reaction with one of them to one of the bot's messages
    /// in the conversation, while the step waits, is saved (as the emoji) like a text answer.
    public var reactions: Located<[Located<String>]>?

    /// Reads the `ask:` mapping.
    public init(yaml reader: NodeReader) throws {
        try reader.expectMapping()
        save = reader.decodeIfPresent(Located<String>.self, forKey: "save")
        match = reader.decodeIfPresent(Located<String>.self, forKey: "match")
        retry = reader.decodeIfPresent(Located<String>.self, forKey: "retry")
        timeout = reader.decodeIfPresent(Located<String>.self, forKey: "timeout")
        onTimeout = reader.decodeIfPresent(Located<ActionList>.self, forKey: "on_timeout")
        reactions = reader.decodeIfPresent(Located<[Located<String>]>.self, forKey: "reactions")
    }

    /// The parsed timeout, if given and valid.
    public var timeoutDuration: Duration? { timeout.flatMap { try? DurationFormat.parse($0.value) } }
}
