import Foundation
import ParleyCore

/// Turns what the hub delivers to a visitor into the JSON of the widget's events (docs/WEB.md,
/// "Events"): each content by its name, its fields and its fallback text, so the page renders
/// the cards it knows and the fallback of any other.
struct VisitorEventEncoder: Sendable {
    /// Decodes every card of every bot.
    let registry: ContentRegistry
    /// The visitor's user id: their own messages are `from: visitor`.
    let visitor: String

    /// A message event's data. `name` is the sender's display name.
    func message(_ envelope: Envelope, senderName: String) -> String {
        var object = content(envelope.payload)
        object["id"] = .string(envelope.id)
        object["seq"] = .int(envelope.seq)
        object["from"] = .string(envelope.sender == visitor ? "visitor" : "bot")
        object["sender"] = .object(["id": .string(envelope.sender), "name": .string(senderName)])
        object["time"] = .string(ISOTimestamp.string(envelope.timestamp))
        if let reply = envelope.replyTo {
            let quoted = content(reply.quoted)["text"] ?? .string("")
            object["quote"] = .object(["id": .string(reply.messageID), "text": quoted])
        }
        if !envelope.reactions.isEmpty {
            object["reactions"] = .object(Dictionary(envelope.reactions.map { ($0.emoji, JSONValue.array($0.users.map { .string($0) })) },
                                                     uniquingKeysWith: { first, _ in first }))
        }
        return JSONValue.object(object).jsonString()
    }

    /// A reaction event's data.
    func reaction(_ event: ReactionEvent) -> String {
        JSONValue.object(["message": .string(event.messageID), "emoji": .string(event.emoji),
                          "user": .string(event.user), "added": .bool(event.added)]).jsonString()
    }

    /// `type`, `fields` and `text` of a payload. A payload that does not decode (a card
    /// whose fields are wrong) is still shown, by the fallback it carries.
    func content(_ payload: JSONValue) -> [String: JSONValue] {
        guard let content = try? registry.decode(payload) else {
            return ["type": .string("unknown"), "fields": .object([:]),
                    "text": payload.objectValue?["fallback"] ?? payload.objectValue?["text"] ?? .string("")]
        }
        let name: String
        if let card = content.cardName {
            name = card
        } else if content.typeCode == TextContent.contentTypeCode {
            name = "text"
        } else {
            name = registry.name(of: content.typeCode) ?? "unknown"
        }
        return ["type": .string(name), "fields": .object(content.encodeFields()), "text": .string(content.fallback)]
    }
}
