import ParleyCore

/// The card a hand-off posts into the agents' group (type 10): the ticket number, the
/// user's vCard, the note and the last messages of the conversation.
public struct TicketContent: RegistrableContent, Hashable {
    public static let contentTypeCode: Int64 = 10
    public static let contentName = "ticket"

    /// The ticket number agents use.
    public var number: Int64
    /// The handed-off user's card.
    public var user: VCardContent
    /// The `handoff` note, rendered.
    public var note: String
    /// The last messages, oldest first, as `name: text` lines.
    public var recent: [String]
    /// The command prefix agents use (`/`), for the fallback's instructions.
    public var prefix: String

    /// Creates a ticket card.
    public init(number: Int64, user: VCardContent, note: String, recent: [String], prefix: String) {
        self.number = number
        self.user = user
        self.note = note
        self.recent = recent
        self.prefix = prefix
    }

    public var cardName: String? { Self.contentName }

    /// One line per part: the name, the note and each recent line are escaped to one line
    /// (`VisibleText`), so a customer whose name or message holds a newline cannot forge a
    /// line of the card — say a second `Ticket #…` header agents would act on.
    public var fallback: String {
        var lines = ["Ticket #\(number) from \(VisibleText.line(user.name))" + (note.isEmpty ? "" : ": \(VisibleText.line(note))")]
        lines += recent.map { "> " + VisibleText.line($0) }
        lines.append("\(prefix)take \(number) · \(prefix)reply \(number) <text> · \(prefix)resolve \(number)")
        return lines.joined(separator: "\n")
    }

    public var digest: String { "[Ticket #\(number)] \(VisibleText.line(user.name))" }

    public func encodeFields() -> [String: JSONValue] {
        ["number": .int(number), "user": .object(user.encodeFields()), "note": .string(note),
         "recent": .array(recent.map { .string($0) }), "prefix": .string(prefix)]
    }

    public static func decode(_ fields: ContentFields) throws -> TicketContent {
        guard let number = try fields.optionalInt("number") else {
            throw ParleyError(.invalidContent, "ticket has no 'number'", context: ["field": "number"])
        }
        guard let user = fields.object["user"]?.objectValue else {
            throw ParleyError(.invalidContent, "ticket has no 'user' object", context: ["field": "user"])
        }
        let recent = (fields.object["recent"]?.arrayValue ?? []).compactMap(\.stringValue)
        return TicketContent(number: number, user: try VCardContent.decode(ContentFields(user, contentName: "vcard")),
                             note: try fields.optionalString("note") ?? "", recent: recent,
                             prefix: try fields.optionalString("prefix") ?? "/")
    }
}
