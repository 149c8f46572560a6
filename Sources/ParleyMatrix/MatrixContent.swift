import Foundation
import ParleyCore

/// The mapping between Parley payloads (WIRE.md) and `m.room.message` contents.
///
/// Type 1 (text) is plain `m.text` (or `m.notice`); every other type is the custom msgtype
/// `chat.parley.card.<card>` carrying the whole payload under `chat.parley.card`, with the
/// fallback as `body` and a small escaped HTML rendering as `formatted_body`, so clients that
/// don't know Parley still show something sensible.
enum MatrixContent {
    static let cardPrefix = "chat.parley.card."
    static let cardKey = "chat.parley.card"
    /// Carries the sender's idempotency key, so Parley receivers see the same client message id.
    static let clientMessageIDKey = "chat.parley.client_message_id"

    /// The `m.room.message` content for `payload`.
    /// - Throws: `invalidContent` when the payload is not an object with an integer `type`, a
    ///   text lacks `text`, or a card name is not a plain identifier.
    static func encode(payload: JSONValue, replyTo: ReplyReference?, ownUserID: String, textMsgtype: String,
                       clientMessageID: UUID) throws -> JSONValue {
        guard let fields = payload.objectValue, let type = payload["type"]?.intValue else {
            throw ParleyError(.invalidContent, "payload must be an object with an integer `type`",
                              context: ["clientMessageID": clientMessageID.uuidString])
        }
        var content: [String: JSONValue]
        if type == 1 {
            guard let text = fields["text"]?.stringValue else {
                throw ParleyError(.invalidContent, "text payload lacks a string `text`", context: ["field": "text"])
            }
            content = ["msgtype": .string(textMsgtype), "body": .string(text)]
        } else {
            let card = fields["card"]?.stringValue ?? "type\(type)"
            guard !card.isEmpty, card.unicodeScalars.allSatisfy({ isIdentifier($0) }) else {
                throw ParleyError(.invalidContent, "card name '\(card)' must be letters, digits, '_', '-' or '.'",
                                  context: ["field": "card"])
            }
            let fallback = fields["fallback"]?.stringValue ?? "[\(card)]"
            content = [
                "msgtype": .string(cardPrefix + card),
                "body": .string(fallback),
                "format": "org.matrix.custom.html",
                "formatted_body": .string(MatrixHTML.card(fields, fallback: fallback)),
                cardKey: payload,
            ]
        }
        content[clientMessageIDKey] = .string(clientMessageID.uuidString)
        if let replyTo {
            content["m.relates_to"] = ["m.in_reply_to": ["event_id": .string(replyTo.messageID)]]
            let mentioned: [JSONValue] = replyTo.sender.isEmpty || replyTo.sender == ownUserID ? [] : [.string(replyTo.sender)]
            content["m.mentions"] = ["user_ids": .array(mentioned)]
        }
        return .object(content)
    }

    /// What an incoming message content means to Parley.
    struct Decoded: Sendable, Hashable {
        var payload: JSONValue
        var replyEventID: String?
        var clientMessageID: UUID?
    }

    /// Decodes an incoming `m.room.message` content; nil for contents Parley does not deliver
    /// (redacted events without `msgtype`/`body`, and edits, which carry `m.new_content`).
    static func decode(_ content: JSONValue) -> Decoded? {
        guard let msgtype = content["msgtype"]?.stringValue, let body = content["body"]?.stringValue else { return nil }
        if content["m.new_content"] != nil { return nil }
        let replyEventID = content["m.relates_to"]?["m.in_reply_to"]?["event_id"]?.stringValue
        let clientMessageID = content[clientMessageIDKey]?.stringValue.flatMap(UUID.init(uuidString:))
        if msgtype.hasPrefix(cardPrefix), let card = content[cardKey], isCard(card, named: String(msgtype.dropFirst(cardPrefix.count))) {
            return Decoded(payload: card, replyEventID: replyEventID, clientMessageID: clientMessageID)
        }
        // m.text, m.notice, m.emote and msgtypes Parley has no card for arrive as text: their
        // `body` is the text clients show.
        let text = replyEventID == nil ? body : stripReplyFallback(body)
        return Decoded(payload: ["type": 1, "text": .string(text)], replyEventID: replyEventID, clientMessageID: clientMessageID)
    }

    /// Whether a card event's payload is the card its msgtype names, as `encode` writes it: a
    /// type other than text, and the msgtype's card name. Anything else would let a forged
    /// event be acted on (`type: 1` with a command as its text) while clients show its
    /// different `body`; such an event is taken as the text people see.
    private static func isCard(_ payload: JSONValue, named name: String) -> Bool {
        guard let type = payload["type"]?.intValue, type != 1 else { return false }
        return (payload["card"]?.stringValue ?? "type\(type)") == name
    }

    /// Removes the quoted reply fallback older clients put before a reply's text: the leading
    /// `> ` lines and the blank line after them.
    static func stripReplyFallback(_ body: String) -> String {
        var lines = body.split(separator: "\n", omittingEmptySubsequences: false)[...]
        guard lines.first?.hasPrefix(">") == true else { return body }
        while let first = lines.first, first.hasPrefix(">") { lines = lines.dropFirst() }
        if lines.first?.isEmpty == true { lines = lines.dropFirst() }
        return lines.joined(separator: "\n")
    }

    private static func isIdentifier(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "_", "-", ".": return true
        default: return false
        }
    }
}
