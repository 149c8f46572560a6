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
    /// Agents resolved the ticket: the bot answers again. `freed`: the conversation's state was
    /// given back in the ticket's own write (its lane was idle), and only `on_resolve` remains.
    case resolved(ticket: Int, freed: Bool = false)
    /// The conversation's ticket moved to another queue, under this number there.
    case moved(from: Int, to: Int)
    /// A queue's timer for ticket `number` of `queue` is due (`remind_after`, `escalate_after`).
    case ticketDue(queue: String, number: Int, TicketTimer)
}

/// What a ticket's timer does when due, if the ticket still waits untaken.
enum TicketTimer: String, Sendable {
    /// Give it to an agent: the queue has opened.
    case assign
    /// Announce it again in its queue.
    case remind
    /// Move it to the queue's `escalate_to`.
    case escalate
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
