import Foundation
import ParleyCore

/// One thing the bot did, as the runner saw it on the bot's transport.
public struct BotOutput: Sendable {
    /// What was done.
    public enum Kind: Sendable {
        /// A message with its wire payload; `replyTo` is the id of the quoted message.
        case message(payload: JSONValue, messageID: String, replyTo: String?)
        /// A reaction added (or, with `added == false`, removed) on a message.
        case reaction(emoji: String, messageID: String, added: Bool)
    }

    /// The channel as the bot names it (`user:alice` is the direct conversation with alice).
    public var channel: Channel
    public var kind: Kind
    /// Virtual time of the output.
    public var time: Date
    /// The id of the test user's latest message in this channel when the output was made
    /// (what `quote: last` compares with).
    public var lastUserMessageID: String?
    /// The number of that message in the recorder (its id may arrive after the output).
    var lastUserMessage: Int?

    /// An output; the recorder fills in which user message it followed.
    public init(channel: Channel, kind: Kind, time: Date) {
        self.channel = channel
        self.kind = kind
        self.time = time
    }

    /// The text that `text`, `contains` and `matches` look at: a text message's text, a card's
    /// `text` field, else the card's fallback. Nil for reactions.
    public var text: String? {
        guard case .message(let payload, _, _) = kind, let object = payload.objectValue else { return nil }
        return object["text"]?.stringValue ?? object["fallback"]?.stringValue
    }

    /// The card name (`greeting`, `order`, …); nil for plain text and reactions.
    public var cardName: String? {
        guard case .message(let payload, _, _) = kind else { return nil }
        return payload.objectValue?["card"]?.stringValue
    }

    /// A card's fields as text (strings as they are, other values as compact JSON), without
    /// the reserved `type`, `fallback` and `card`.
    public var fields: [String: String] {
        guard case .message(let payload, _, _) = kind, let object = payload.objectValue else { return [:] }
        var fields: [String: String] = [:]
        for (key, value) in object where !Self.reservedKeys.contains(key) {
            switch value {
            case .string(let text): fields[key] = text
            case .null: continue
            default: fields[key] = value.jsonString()
            }
        }
        return fields
    }

    static let reservedKeys: Set<String> = ["type", "fallback", "card"]
}
