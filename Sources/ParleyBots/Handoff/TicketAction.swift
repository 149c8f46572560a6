/// What an agent does with a ticket: the `take`, `reply` and `resolve` of the queue's chat
/// commands, also asked for through the admin API (`BotHost.ticketAction`).
public enum TicketAction: Sendable, Hashable {
    /// Claims the ticket for the agent (refused while another agent has it).
    case take
    /// Sends the text to the customer, as the bot.
    case reply(String)
    /// Closes the ticket and gives the conversation back to the bot.
    case resolve
    /// Moves the ticket to another queue (a new number there), with a note for its agents.
    case transfer(queue: String, note: String?)
    /// Adds an internal note to the ticket; the customer never sees it.
    case note(String)

    /// `take`, `reply`, `resolve`, `transfer`, `note`.
    public var verb: String {
        switch self {
        case .take: "take"
        case .reply: "reply"
        case .resolve: "resolve"
        case .transfer: "transfer"
        case .note: "note"
        }
    }
}

/// Why a ticket action was refused: a stable code and a message for people.
public struct TicketError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable error code (static members, so new ones never break a `switch`).
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        /// Wraps a raw code.
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// No running bot hands off to that queue.
        public static let unknownQueue = Code(rawValue: "unknownQueue")
        /// The queue has no ticket with that number.
        public static let unknownTicket = Code(rawValue: "unknownTicket")
        /// The ticket is resolved already.
        public static let resolved = Code(rawValue: "resolved")
        /// Another agent has taken the ticket.
        public static let takenByAnother = Code(rawValue: "takenByAnother")
        /// The reply did not reach the server (the log says why).
        public static let sendFailed = Code(rawValue: "sendFailed")
        /// The tickets' storage failed.
        public static let storage = Code(rawValue: "storage")
    }

    /// The code to match on.
    public var code: Code
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
