import Foundation

/// Header flags of a message (the seeds' message header).
public struct MessageFlags: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Delivered to members online now, never stored, never caught up.
    public static let noPersist = MessageFlags(rawValue: 1 << 0)
    /// Counts towards the receiver's unread badge.
    public static let redDot = MessageFlags(rawValue: 1 << 1)
    /// Synced to the sender's other devices only once.
    public static let syncOnce = MessageFlags(rawValue: 1 << 2)
}

/// What a reply refers to: the original message, its sequence number and sender, and the
/// quoted payload (so the quote shows even when the original is no longer at hand).
public struct ReplyReference: Sendable, Hashable {
    public var messageID: String
    public var seq: Int64
    public var sender: String
    public var quoted: JSONValue

    public init(messageID: String, seq: Int64, sender: String, quoted: JSONValue) {
        self.messageID = messageID
        self.seq = seq
        self.sender = sender
        self.quoted = quoted
    }
}

/// One emoji on a message and who reacted with it, in the order they reacted.
public struct ReactionSummary: Sendable, Hashable {
    public var emoji: String
    public var users: [String]

    public init(emoji: String, users: [String]) {
        self.emoji = emoji
        self.users = users
    }
}

/// A message as a transport carries it: the content is still an encoded JSON object
/// (`{"type": 3, …}`); `ChatClient` decodes it through the content registry.
public struct Envelope: Sendable, Hashable {
    /// The server's id for the message.
    public var id: String
    /// The channel as seen by the receiving account (for a direct message: the other user).
    public var channel: Channel
    /// Strictly increasing within a channel.
    public var seq: Int64
    /// The sender's idempotency key.
    public var clientMessageID: UUID
    public var sender: String
    public var timestamp: Date
    /// The encoded content, an object with a numeric `type`.
    public var payload: JSONValue
    public var flags: MessageFlags
    public var replyTo: ReplyReference?
    public var reactions: [ReactionSummary]
    /// When set, only these members of a group may see the message.
    public var visibleTo: [String]?
    /// Free-form extras; `sender.name` / `sender.avatar` carry the sender's profile preview.
    public var extensions: [String: JSONValue]

    public init(
        id: String, channel: Channel, seq: Int64, clientMessageID: UUID, sender: String, timestamp: Date,
        payload: JSONValue, flags: MessageFlags = [], replyTo: ReplyReference? = nil,
        reactions: [ReactionSummary] = [], visibleTo: [String]? = nil, extensions: [String: JSONValue] = [:]
    ) {
        self.id = id
        self.channel = channel
        self.seq = seq
        self.clientMessageID = clientMessageID
        self.sender = sender
        self.timestamp = timestamp
        self.payload = payload
        self.flags = flags
        self.replyTo = replyTo
        self.reactions = reactions
        self.visibleTo = visibleTo
        self.extensions = extensions
    }
}

/// A message to send: everything but what the server assigns (id, seq, time).
public struct OutgoingEnvelope: Sendable, Hashable {
    public var channel: Channel
    /// The idempotency key: sending the same one twice yields one message.
    public var clientMessageID: UUID
    public var payload: JSONValue
    public var flags: MessageFlags
    public var replyTo: ReplyReference?
    public var visibleTo: [String]?
    public var extensions: [String: JSONValue]
    /// Set by the sender when this send may repeat one the server already stored (a retry
    /// after a failure, or an item recovered from the outbox after a restart): a server that
    /// keeps only its newest receipts in memory then looks further for the first one. Not
    /// part of the message.
    public var isResend = false

    public init(
        channel: Channel, clientMessageID: UUID = UUID(), payload: JSONValue, flags: MessageFlags = [],
        replyTo: ReplyReference? = nil, visibleTo: [String]? = nil, extensions: [String: JSONValue] = [:]
    ) {
        self.channel = channel
        self.clientMessageID = clientMessageID
        self.payload = payload
        self.flags = flags
        self.replyTo = replyTo
        self.visibleTo = visibleTo
        self.extensions = extensions
    }
}

/// What the server answered to a send. A resend with the same client message number gets
/// the original id and seq back.
public struct SendReceipt: Sendable, Hashable {
    public var messageID: String
    public var seq: Int64
    public var timestamp: Date

    public init(messageID: String, seq: Int64, timestamp: Date) {
        self.messageID = messageID
        self.seq = seq
        self.timestamp = timestamp
    }
}
