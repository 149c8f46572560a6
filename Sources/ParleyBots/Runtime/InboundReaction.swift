import Foundation
import ParleyCore

/// A user's reaction to one of the bot's messages, as the runtime routes it: an input of the
/// conversation like a message, kept in the inbox until handled (`ReceivedMessage.reaction`)
/// and handled once, in order with the conversation's messages.
struct InboundReaction: Sendable, Hashable {
    /// The reaction event's id on the server (a Matrix event id), or one made when it came
    /// (the embedded hub's reaction events carry none): what the inbox and the names of the
    /// answer's sends are keyed by.
    var id: String
    /// The conversation, as the bot names it.
    var channel: Channel
    /// The bot's message reacted to.
    var messageID: String
    /// The emoji, as the user sent it.
    var emoji: String
    /// Who reacted.
    var user: String
    /// When it came.
    var timestamp: Date

    /// The reaction of `event`, under `id`.
    init(_ event: ReactionEvent, id: String, at timestamp: Date) {
        self.id = id
        channel = event.channel
        messageID = event.messageID
        emoji = event.emoji
        user = event.user
        self.timestamp = timestamp
    }

    /// The reaction an inbox entry keeps; nil for a message.
    init?(_ entry: ReceivedMessage) {
        guard let reaction = entry.reaction else { return nil }
        id = entry.id
        channel = entry.channel
        messageID = reaction.messageID
        emoji = reaction.emoji
        user = entry.sender
        timestamp = entry.timestamp
    }

    /// The inbox entry.
    var received: ReceivedMessage { ReceivedMessage(self) }
}

extension ReceivedMessage {
    /// The inbox entry of a reaction.
    init(_ reaction: InboundReaction) {
        self.init(reaction: reaction.id, channel: reaction.channel, sender: reaction.user, messageID: reaction.messageID,
                  emoji: reaction.emoji, timestamp: reaction.timestamp)
    }

    /// The inbox entry of the reaction `id`: `sender` reacted with `emoji` to the bot's message
    /// `messageID` in `channel` (as the bot names it). No content, no seq: reactions have none.
    public init(reaction id: String, channel: Channel, sender: String, messageID: String, emoji: String, timestamp: Date) {
        self.id = id
        self.channel = channel
        seq = 0
        clientMessageID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        self.sender = sender
        self.timestamp = timestamp
        payload = [:]
        senderName = nil
        reaction = Reaction(messageID: messageID, emoji: emoji)
    }
}
