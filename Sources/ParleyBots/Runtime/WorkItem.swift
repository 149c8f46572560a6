import Foundation
import ParleyCore

/// One unit of a conversation's serial work.
enum WorkItem: Sendable {
    /// A message from someone in the conversation.
    case message(Message)
    /// A user's reaction to one of the bot's messages here.
    case reaction(InboundReaction)
    /// The bot joined this group.
    case joined
    /// An `ask` timeout fired.
    case timeout(StepPosition, Date)
    /// The rest of a plan after a `wait` is due: the delayed plan with this id in the
    /// conversation's state (gone if it already ran).
    case resume(UUID)
    /// Agents resolved the ticket: the bot answers again.
    case resolved(ticket: Int)
}

extension WorkItem {
    /// A message or reaction the server delivered (kept in the inbox while one is kept).
    var isReceived: Bool {
        switch self {
        case .message, .reaction: true
        default: false
        }
    }
}
