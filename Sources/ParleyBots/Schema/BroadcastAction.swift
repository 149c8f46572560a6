import YAMLCoding

/// `broadcast:` — send one content to many targets in rate-limited batches.
public struct BroadcastAction: YAMLNodeDecodable, Sendable {
    /// Targets `user:ID` / `group:ID` (or `to_file`).
    public var to: [Located<String>]?
    /// A file with one target a line, relative to the bot file's folder.
    public var toFile: Located<String>?
    /// One of the bot's `audiences:` instead of `to` / `to_file`: its members when the job starts.
    public var audience: Located<String>?
    /// What to send to each recipient (templates may use `{{recipient.id}}` / `{{recipient.name}}`).
    public var send: SendAction
    /// Rate such as `20/s`; default: the host's broadcast rate.
    public var rate: Located<String>?

    /// Reads `to`, `to_file`, `audience`, `send` (required) and `rate`.
    public init(yaml reader: NodeReader) throws {
        try reader.expectMapping()
        to = reader.decodeIfPresent([Located<String>].self, forKey: "to")
        toFile = reader.decodeIfPresent(Located<String>.self, forKey: "to_file")
        audience = reader.decodeIfPresent(Located<String>.self, forKey: "audience")
        send = try reader.decode(SendAction.self, forKey: "send")
        rate = reader.decodeIfPresent(Located<String>.self, forKey: "rate")
    }

    /// The parsed rate, if given and valid.
    public var parsedRate: Rate? { rate.flatMap { try? Rate(parsing: $0.value) } }
}
