import YAMLCoding
/// One bot file (`bots/<id>.yaml`), exactly as written. `BotValidator` checks the references
/// between its parts; the engine should only run definitions that validated cleanly.
public struct BotDefinition: YAMLNodeDecodable, Sendable {
    /// The bot's id; default: the file name without `.yaml` (see `BotFile`).
    public var id: Located<String>?
    /// Display name (`{{bot.name}}`); default: the id.
    public var name: Located<String>?
    /// Avatar URL.
    public var avatar: Located<String>?
    /// Command prefix; default `/`.
    public var prefix: Located<String>?
    /// Who may talk to the bot.
    public var allow: AllowList?
    /// Actions on first contact with a user, or on joining a group.
    public var greeting: Located<ActionList>?
    /// Commands by name, in file order.
    public var commands: OrderedMap<Command>
    /// Free-text triggers; the first match wins.
    public var triggers: [Trigger]
    /// Flows by name; each is its steps by name, in file order.
    public var flows: OrderedMap<OrderedMap<Step>>
    /// Actions when nothing else handled a message.
    public var fallback: Located<ActionList>?
    /// Timed jobs.
    public var schedules: [Schedule]
    /// Custom card types by name.
    public var cards: OrderedMap<CardDeclaration>
    /// How the bot's hand-off queues are staffed.
    public var handoff: HandoffPolicy?
    /// Opt-in lists for broadcasts, by name, in file order.
    public var audiences: OrderedMap<Audience>

    /// Reads a bot file's top-level mapping (an empty file is an empty bot).
    public init(yaml reader: NodeReader) throws {
        try reader.expectMapping()
        id = reader.decodeIfPresent(Located<String>.self, forKey: "id")
        name = reader.decodeIfPresent(Located<String>.self, forKey: "name")
        avatar = reader.decodeIfPresent(Located<String>.self, forKey: "avatar")
        prefix = reader.decodeIfPresent(Located<String>.self, forKey: "prefix")
        allow = reader.decodeIfPresent(AllowList.self, forKey: "allow")
        greeting = reader.decodeIfPresent(Located<ActionList>.self, forKey: "greeting")
        commands = reader.decodeIfPresent(OrderedMap<Command>.self, forKey: "commands") ?? OrderedMap()
        triggers = reader.decodeIfPresent([Trigger].self, forKey: "triggers") ?? []
        flows = reader.decodeIfPresent(OrderedMap<OrderedMap<Step>>.self, forKey: "flows") ?? OrderedMap()
        fallback = reader.decodeIfPresent(Located<ActionList>.self, forKey: "fallback")
        schedules = reader.decodeIfPresent([Schedule].self, forKey: "schedules") ?? []
        cards = reader.decodeIfPresent(OrderedMap<CardDeclaration>.self, forKey: "cards") ?? OrderedMap()
        handoff = reader.decodeIfPresent(HandoffPolicy.self, forKey: "handoff")
        audiences = reader.decodeIfPresent(OrderedMap<Audience>.self, forKey: "audiences") ?? OrderedMap()
    }

    /// The command prefix (`/` unless set).
    public var commandPrefix: String { prefix?.value ?? "/" }
}
