import Foundation
import ParleyCore

/// A received message as the engine store keeps it: in a bot's inbox until handled, and as
/// the trigger of a delayed plan (to quote and react to). Its JSON is the stored form. The
/// inbox keeps a user's reaction to one of the bot's messages the same way, with `reaction`.
public struct ReceivedMessage: Sendable, Hashable, Codable {
    /// The server's id of the message.
    public var id: String
    /// The conversation (the bot's view of it).
    public var channel: Channel
    /// Its sequence number in the channel.
    public var seq: Int64
    /// The sender's client message number.
    public var clientMessageID: UUID
    /// Who sent it.
    public var sender: String
    /// When the server took it.
    public var timestamp: Date
    /// The content, encoded.
    public var payload: JSONValue
    /// The name the message carried for its sender, if any.
    public var senderName: String?
    /// Set when the entry is a reaction, not a message: `sender` reacted with `emoji` to the
    /// bot's message `messageID` (`payload` is then empty, `seq` 0).
    public var reaction: Reaction?

    /// What a reaction kept in the inbox is on, and with which emoji.
    public struct Reaction: Sendable, Hashable, Codable {
        /// The bot's message reacted to.
        public var messageID: String
        /// The emoji.
        public var emoji: String
    }

    /// The inbox entry of `message`.
    public init(_ message: Message) {
        id = message.id
        channel = message.channel
        seq = message.seq
        clientMessageID = message.clientMessageID
        sender = message.sender
        timestamp = message.timestamp
        payload = message.content.encoded()
        senderName = message.senderName
    }

    /// The message again, its content decoded by `registry` (an unknown type stays as it
    /// came: the payload was decoded once already).
    public func message(registry: ContentRegistry) -> Message {
        let content: any MessageContent = (try? registry.decode(payload)) ?? UnknownContent(typeCode: 0, raw: [:])
        return Message(id: id, channel: channel, seq: seq, clientMessageID: clientMessageID, sender: sender, timestamp: timestamp,
                       content: content, extensions: senderName.map { ["sender.name": .string($0)] } ?? [:])
    }
}

extension ReceivedMessage {
    /// The stored form: the JSON its `Codable` conformance reads (and `JSONEncoder` would
    /// write), written by hand: every received message is stored once, and `JSONEncoder`
    /// cost more than the insert.
    public var storedJSON: String {
        var fields: [String: JSONValue] = [
            "id": .string(id),
            "channel": ["kind": .string(channel.kind.rawValue), "id": .string(channel.id)],
            "seq": .int(seq),
            "clientMessageID": .string(clientMessageID.uuidString),
            "sender": .string(sender),
            // `Date`'s own encoding: seconds since the 2001 reference date.
            "timestamp": .double(timestamp.timeIntervalSinceReferenceDate),
            "payload": payload,
        ]
        if let senderName { fields["senderName"] = .string(senderName) }
        if let reaction { fields["reaction"] = ["messageID": .string(reaction.messageID), "emoji": .string(reaction.emoji)] }
        return JSONValue.object(fields).compactJSON()
    }
}

