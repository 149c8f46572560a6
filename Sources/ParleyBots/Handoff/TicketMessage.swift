import Foundation

/// One message of a ticket's conversation as an agent reads it (the agents' console): who
/// wrote it, and what it says in words. Made by the bot that reads the conversation
/// (`BotHost.conversation(of:limit:)`); others only read it.
public struct TicketMessage: Sendable, Hashable {
    /// Which side of the conversation wrote it.
    public enum Side: String, Sendable, Hashable {
        /// The customer (or, in a group conversation, anyone but the bot).
        case customer
        /// The bot, which also carries what agents reply (`reply`): the customer talks to one party.
        case bot
    }

    public var from: Side
    /// The writer's name: the bot's, the customer's card's, or the name the message carried.
    public var name: String
    /// The content's fallback text: what any client can show of any content.
    public var text: String
    /// When the server took it.
    public var time: Date
}
