import ParleyCore

/// A broadcast asked for from outside the bot files (the admin API): the job a schedule's
/// `broadcast:` makes, from the same parts — `to` targets, a `send:` (a text, or a card with
/// fields) and an optional rate.
public struct BroadcastOrder: Sendable {
    /// The job id; nil: a new UUID. An existing job with this id is returned, not repeated.
    public var id: String?
    /// The bot that sends.
    public var bot: String
    /// Targets `user:ID` / `group:ID`.
    public var to: [String]
    /// The text, or a card's text field. May use `{{recipient.id}}`, `{{recipient.name}}`,
    /// `{{recipient.target}}`, `{{bot.id}}` and `{{bot.name}}`.
    public var text: String?
    /// A built-in card or one of the bot's `cards:`; nil for a text message.
    public var card: String?
    /// The card's other fields (templates like `text`).
    public var fields: [String: String]
    /// The job's own rate limit.
    public var rate: Rate?
    /// What started it, as the job lists it.
    public var origin: String

    /// An order for `bot` to send `text` to `to`.
    public init(id: String? = nil, bot: String, to: [String], text: String? = nil, card: String? = nil,
                fields: [String: String] = [:], rate: Rate? = nil, origin: String = "api") {
        self.id = id
        self.bot = bot
        self.to = to
        self.text = text
        self.card = card
        self.fields = fields
        self.rate = rate
        self.origin = origin
    }

    /// The placeholders an order's templates may use.
    static let placeholders = BroadcastMessage.recipientPaths.union(["bot.id", "bot.name"])

    /// The `send:` of the order with its templates parsed; `invalidMessage` naming the field
    /// (`send.text`, `send.card`, `send.NAME`) for a malformed template, an unknown placeholder
    /// or a message with nothing in it.
    func compiled() throws(BroadcastError) -> CompiledSend {
        guard text != nil || card != nil else {
            throw BroadcastError(.invalidMessage, "send: give a text or a card")
        }
        var fields: [NamedTemplate] = []
        for (name, value) in self.fields.sorted(by: { $0.key < $1.key }) {
            fields.append(NamedTemplate(name: name, template: try Self.template(value, field: "send.\(name)")))
        }
        return CompiledSend(card: card, text: try text.map { (text) throws(BroadcastError) in try Self.template(text, field: "send.text") },
                            fields: fields, to: nil)
    }

    private static func template(_ text: String, field: String) throws(BroadcastError) -> Template {
        let template: Template
        do { template = try Template(text) } catch {
            throw BroadcastError(.invalidMessage, "\(field): \(error.message) at offset \(error.offset)")
        }
        if let unknown = template.variables.first(where: { !placeholders.contains($0) }) {
            throw BroadcastError(.invalidMessage, "\(field): unknown placeholder '{{\(unknown)}}'; use "
                                 + placeholders.sorted().joined(separator: ", "))
        }
        return template
    }
}
