import YAMLCoding

/// `audiences: NAME:` — an opt-in list a bot keeps for its broadcasts: users join with a
/// subscribe command and leave with an unsubscribe word; a `broadcast:` with `audience:`
/// goes to its members.
public struct Audience: YAMLNodeDecodable, Sendable {
    /// What the list is about (for people and `parley audiences`).
    public var description: Located<String>?
    /// Commands (with the bot's prefix) that opt a user in.
    public var subscribe: [Located<String>]
    /// Words that opt a user out, with or without the prefix, in any case.
    public var unsubscribe: [Located<String>]
    /// Actions after a user opted in / out.
    public var onSubscribe: Located<ActionList>?
    public var onUnsubscribe: Located<ActionList>?
    /// A file of targets (one a line) added once, at the first start; an opt-out wins.
    public var importFile: Located<String>?
    /// Where the audience's mapping starts.
    public var mark: Mark

    /// Reads the audience's mapping.
    public init(yaml reader: NodeReader) throws {
        mark = reader.mark
        try reader.expectMapping()
        description = reader.decodeIfPresent(Located<String>.self, forKey: "description")
        subscribe = reader.decodeIfPresent([Located<String>].self, forKey: "subscribe") ?? []
        unsubscribe = reader.decodeIfPresent([Located<String>].self, forKey: "unsubscribe") ?? []
        onSubscribe = reader.decodeIfPresent(Located<ActionList>.self, forKey: "on_subscribe")
        onUnsubscribe = reader.decodeIfPresent(Located<ActionList>.self, forKey: "on_unsubscribe")
        importFile = reader.decodeIfPresent(Located<String>.self, forKey: "import")
    }
}
