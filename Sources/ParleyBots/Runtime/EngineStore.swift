import Foundation

/// A hand-off ticket: a conversation passed to the agents of a queue.
public struct Ticket: Sendable, Hashable, Codable {
    /// Where the ticket stands.
    public enum Status: String, Sendable, Hashable, Codable { case open, taken, resolved }

    /// Numbered per bot from 1.
    public var number: Int
    /// The bot that opened it.
    public var bot: String
    /// The paused conversation (`user:alice`, `group:…`).
    public var channel: String
    /// The user who was handed off.
    public var user: String
    /// The agents' queue (`group:<queue>`).
    public var queue: String
    /// Open, taken or resolved.
    public var status: Status
    /// The agent who took it.
    public var agent: String?

    /// Creates a ticket (the store assigns `number`).
    public init(number: Int = 0, bot: String, channel: String, user: String, queue: String, status: Status = .open, agent: String? = nil) {
        self.number = number
        self.bot = bot
        self.channel = channel
        self.user = user
        self.queue = queue
        self.status = status
        self.agent = agent
    }
}

/// Where bots keep what must survive a restart: conversation states (flow position,
/// variables, pauses), who was greeted, hand-off tickets.
public protocol EngineStore: Sendable {
    /// The state of a conversation, or nil if it never had one.
    func state(bot: String, channel: String) throws -> ConversationState?
    /// Saves (or with nil, forgets) a conversation's state.
    func save(_ state: ConversationState?, bot: String, channel: String) throws
    /// Conversations of `bot` with a timer: an `ask` deadline or a plan waiting after a
    /// `wait` (`nextTimer` not nil), to re-arm them at start.
    func statesWithTimers(bot: String) throws -> [(channel: String, state: ConversationState)]
    /// Records that `key` (`user:ID` or `group:ID`) was greeted; true if it was not before.
    func markGreeted(bot: String, key: String) throws -> Bool
    /// Stores a new ticket and returns it with its number — unless the bot's conversation
    /// `ticket.channel` already has an unresolved ticket: then that one is returned, so a
    /// hand-off run again after a crash opens no second ticket.
    func open(_ ticket: Ticket) throws -> Ticket
    /// A ticket by number.
    func ticket(bot: String, number: Int) throws -> Ticket?
    /// Saves a changed ticket.
    func update(_ ticket: Ticket) throws
}
