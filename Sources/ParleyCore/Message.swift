import Foundation

/// A message as the core SDK presents it: the envelope's facts with the content decoded.
public struct Message: Sendable {
    /// The server's id.
    public var id: String
    /// The channel as this account sees it.
    public var channel: Channel
    /// Strictly increasing within the channel.
    public var seq: Int64
    /// The sender's idempotency key (client message number).
    public var clientMessageID: UUID
    /// Who sent it.
    public var sender: String
    /// When the server took it.
    public var timestamp: Date
    /// The decoded body.
    public var content: any MessageContent
    /// Header flags.
    public var flags: MessageFlags
    /// What it replies to, with the quoted payload.
    public var replyTo: ReplyReference?
    /// Aggregated reactions, in the order they were first added.
    public var reactions: [ReactionSummary]
    /// When set, only these members of a group may see the message.
    public var visibleTo: [String]?
    /// Free-form extras (`sender.name`, `forward.id`, …).
    public var extensions: [String: JSONValue]

    /// A message from its parts.
    public init(id: String, channel: Channel, seq: Int64, clientMessageID: UUID, sender: String, timestamp: Date,
                content: any MessageContent, flags: MessageFlags = [], replyTo: ReplyReference? = nil,
                reactions: [ReactionSummary] = [], visibleTo: [String]? = nil, extensions: [String: JSONValue] = [:]) {
        self.id = id
        self.channel = channel
        self.seq = seq
        self.clientMessageID = clientMessageID
        self.sender = sender
        self.timestamp = timestamp
        self.content = content
        self.flags = flags
        self.replyTo = replyTo
        self.reactions = reactions
        self.visibleTo = visibleTo
        self.extensions = extensions
    }

    /// Decodes an envelope's payload through `registry` (unknown types become `UnknownContent`).
    public init(envelope: Envelope, registry: ContentRegistry) throws {
        self.init(id: envelope.id, channel: envelope.channel, seq: envelope.seq, clientMessageID: envelope.clientMessageID,
                  sender: envelope.sender, timestamp: envelope.timestamp, content: try registry.decode(envelope.payload),
                  flags: envelope.flags, replyTo: envelope.replyTo, reactions: envelope.reactions,
                  visibleTo: envelope.visibleTo, extensions: envelope.extensions)
    }

    /// The message back as an envelope (content encoded), for storage and forwarding.
    public var envelope: Envelope {
        Envelope(id: id, channel: channel, seq: seq, clientMessageID: clientMessageID, sender: sender, timestamp: timestamp,
                 payload: content.encoded(), flags: flags, replyTo: replyTo, reactions: reactions,
                 visibleTo: visibleTo, extensions: extensions)
    }

    /// The sender's name carried in the message (`sender.name`), shown until the profile arrives.
    public var senderName: String? { extensions["sender.name"]?.stringValue }
    /// The sender's avatar carried in the message (`sender.avatar`).
    public var senderAvatar: String? { extensions["sender.avatar"]?.stringValue }

    /// The text if the content is plain text.
    public var text: String? { (content as? TextContent)?.text }

    /// A reference for replying to this message (quotes its payload).
    public var replyReference: ReplyReference {
        ReplyReference(messageID: id, seq: seq, sender: sender, quoted: content.encoded())
    }

    /// Applies a reaction change: adds `user` under `emoji` or removes them (dropping empty emoji).
    public mutating func apply(_ reaction: ReactionEvent) {
        if let index = reactions.firstIndex(where: { $0.emoji == reaction.emoji }) {
            if reaction.added {
                if !reactions[index].users.contains(reaction.user) { reactions[index].users.append(reaction.user) }
            } else {
                reactions[index].users.removeAll { $0 == reaction.user }
                if reactions[index].users.isEmpty { reactions.remove(at: index) }
            }
        } else if reaction.added {
            reactions.append(ReactionSummary(emoji: reaction.emoji, users: [reaction.user]))
        }
    }
}
