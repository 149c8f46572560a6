import Foundation
import ParleyCore

/// A hand-off ticket: a conversation passed to the agents of a queue.
public struct Ticket: Sendable, Hashable, Codable {
    /// Where the ticket stands.
    public enum Status: String, Sendable, Hashable, Codable { case open, taken, resolved }

    /// Numbered per queue from 1: every bot posting into one queue draws from one sequence,
    /// so a number in an agent's command names one ticket. (Tickets opened before numbers were
    /// per queue keep their per-bot numbers; new ones continue after the highest.)
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
    /// When it was resolved: `storage.retention` after that, it is deleted.
    public var resolvedAt: Date?
    /// When it was opened (nil for tickets stored before this was kept): the age of the oldest
    /// unclaimed ticket of a queue is what `/metrics` shows an operator.
    public var openedAt: Date?
    /// When an agent took it (or it was assigned), and when an agent first answered.
    public var takenAt: Date?
    public var firstAnswerAt: Date?
    /// When it was announced again untaken (`remind_after`), once.
    public var remindedAt: Date?
    /// Where it was moved (`queue#N`) by a transfer or an escalation; it is closed then.
    public var movedTo: String?
    /// Where it came from (`queue#N`), and the note the move carried.
    public var movedFrom: String?
    /// The agents' internal notes (`note N TEXT`), oldest first; never shown to the customer.
    public var notes: [Note]?
    /// The customer's card as the ticket's card showed it when it was opened, and the hand-off
    /// (or transfer, escalation) note: what the agents' console shows without asking the
    /// server again. Nil in tickets stored before they were kept; optional, so those still
    /// decode (the stores keep a ticket as JSON: no migration).
    public var customer: VCardContent?
    public var note: String?

    /// An internal note of an agent.
    public struct Note: Sendable, Hashable, Codable {
        public var agent: String
        public var text: String
        public var at: Date
    }

    /// Creates a ticket (the store assigns `number`).
    public init(number: Int = 0, bot: String, channel: String, user: String, queue: String, status: Status = .open, agent: String? = nil,
                openedAt: Date? = nil, customer: VCardContent? = nil, note: String? = nil) {
        self.openedAt = openedAt
        self.customer = customer
        self.note = note
        self.number = number
        self.bot = bot
        self.channel = channel
        self.user = user
        self.queue = queue
        self.status = status
        self.agent = agent
    }

    /// The ticket a move (transfer, escalation) opens in `queue` as `number`: the same
    /// conversation and customer, `note` saying why, open from `now`.
    public func successor(in queue: String, number: Int, note: String, at now: Date) -> Ticket {
        var next = Ticket(number: number, bot: bot, channel: channel, user: user, queue: queue, openedAt: now, customer: customer, note: note)
        next.movedFrom = "\(self.queue)#\(self.number)"
        return next
    }

    /// This ticket closed by the move that opened `next`.
    public func closed(movingTo next: Ticket, at now: Date) -> Ticket {
        var old = self
        old.status = .resolved
        old.resolvedAt = now
        old.movedTo = "\(next.queue)#\(next.number)"
        return old
    }
}

/// Where bots keep what must survive a restart: conversation states (flow position,
/// variables, pauses), who was greeted, hand-off tickets, and the messages received and not
/// yet handled (the inbox).
///
/// The async writes return once the write is durable; the caller suspends meanwhile and
/// holds no thread (on SQLite the file's writer runs them, in its next group commit).
public protocol BotStore: Sendable {
    /// The state of a conversation, or nil if it never had one.
    func state(bot: String, channel: String) throws -> ConversationState?
    /// Saves (or with nil, forgets) a conversation's state; with `handled`, also takes that
    /// message out of the bot's inbox, in the same write. With `handled` (and in `handled(_:bot:)`)
    /// a store may write behind: return before the write is durable, which is safe because a
    /// restart handles a message still in the inbox again. Every other call sees the write.
    func save(_ state: ConversationState?, bot: String, channel: String, handled: String?) throws
    /// Keeps messages `bot` has received (the server will not deliver them again) until they
    /// are handled; one already kept stays as it is. Returns once they are durable (a caller
    /// suspends meanwhile, holding no thread).
    func receive(_ messages: [ReceivedMessage], bot: String) async throws
    /// Takes a message out of `bot`'s inbox: it was handled and changed no state.
    func handled(_ messageID: String, bot: String) throws
    /// The messages `bot` received and did not finish handling, in the order received: a
    /// restart handles them first.
    func unhandled(bot: String) throws -> [ReceivedMessage]
    /// Waits until the writes made behind (see `save`) are done: at a clean stop.
    func flushWrites()
    /// False when nothing outlives the process (a memory store): the bots then keep no inbox
    /// and name no sends, which would only cost time.
    var isPersistent: Bool { get }
    /// Conversations of `bot` with a timer: an `ask` deadline or a plan waiting after a
    /// `wait` (`nextTimer` not nil), to re-arm them at start.
    func statesWithTimers(bot: String) throws -> [(channel: String, state: ConversationState)]
    /// Records that `key` (`user:ID` or `group:ID`) was greeted, or is still around, at `now`;
    /// true if it was not greeted before (or so long ago that the greeting was pruned), or was
    /// greeted in answer to this very `message`: a message handled again after a crash (from
    /// the inbox) is greeted again, under the same send names, so the greeting goes out once
    /// whether or not the first run had sent it.
    nonisolated(nonsending) func markGreeted(bot: String, key: String, at now: Date, message: String?) async throws -> Bool
    /// Stores a new ticket and returns it with the next number of its queue — unless the bot's
    /// conversation `ticket.channel` already has an unresolved ticket: then that one is
    /// returned, so a hand-off run again after a crash opens no second ticket. Numbering is
    /// atomic: bots sharing the store never draw the same number for one queue.
    nonisolated(nonsending) func open(_ ticket: Ticket) async throws -> Ticket
    /// The tickets numbered `number` in `queue`, of any bot: at most one, except for tickets
    /// numbered per bot before numbers were per queue.
    func tickets(queue: String, number: Int) throws -> [Ticket]
    /// The bot's newest ticket numbered `number` for the conversation `channel` (the one its
    /// paused state names: a conversation has one unresolved ticket at a time, and numbers of
    /// different queues may coincide).
    func ticket(bot: String, channel: String, number: Int) throws -> Ticket?
    /// Saves a changed ticket (found by bot, queue and number).
    nonisolated(nonsending) func update(_ ticket: Ticket) async throws
    /// Saves a changed ticket and, in the same write, the state of its conversation (nil:
    /// forgets it): a resolution that gives the conversation back to the bot.
    nonisolated(nonsending) func update(_ ticket: Ticket, state: ConversationState?) async throws
    /// Deletes what `storage.retention` no longer keeps: tickets resolved before `cutoff` and
    /// greetings of users not heard from since (they are greeted again as new). Returns the
    /// number of records deleted.
    func prune(before cutoff: Date) throws -> Int
    /// Counts for an operator (`/metrics`): tickets by queue and status, each queue's oldest
    /// open ticket, and conversations in a flow per bot.
    func summary() throws -> BotStoreSummary
    /// Tickets, newest first, at most `limit`: of `queue` (nil: every queue), with one of
    /// `statuses` (empty: any).
    func listTickets(queue: String?, statuses: Set<Ticket.Status>, limit: Int) throws -> [Ticket]
    /// Closes `ticket` as moved and opens its successor in `queue` (next number there, carrying
    /// `note`: `Ticket.successor`), in one write: a crash leaves the old ticket open or the
    /// new one, never neither. Returns the new.
    nonisolated(nonsending) func transfer(_ ticket: Ticket, to queue: String, note: String, at now: Date) async throws -> Ticket
    /// How many tickets of `queue` wait untaken ahead of ticket `number` (lower numbers):
    /// counted by the store, whatever the length of the queue.
    func waitingAhead(of number: Int, queue: String) throws -> Int
    /// The taken tickets of `queue`, per agent (`least_busy`).
    func takenCounts(queue: String) throws -> [String: Int]
    /// Marks `agent` away (or back): automatic assignment skips an away agent.
    nonisolated(nonsending) func setAway(_ agent: String, _ away: Bool) async throws
    /// The agents marked away.
    func awayAgents() throws -> Set<String>
    /// The agent the last ticket of `queue` was assigned to in turn (`round_robin`).
    func lastAssigned(queue: String) throws -> String?
    /// Records the agent the last ticket of `queue` was assigned to.
    nonisolated(nonsending) func setLastAssigned(queue: String, agent: String) async throws
    /// Saves `ticket`, just assigned to `ticket.agent` in turn, and records that agent as its
    /// queue's last assigned: one write where the store has transactions.
    nonisolated(nonsending) func assign(_ ticket: Ticket) async throws
}

/// What `BotStore.summary()` counts.
public struct BotStoreSummary: Sendable, Equatable {
    /// Tickets by queue and status (resolved ones until `storage.retention` prunes them).
    public var tickets: [TicketKey: Int] = [:]
    /// When each queue's oldest open (untaken) ticket was opened; a queue without one is absent.
    public var oldestOpen: [String: Date] = [:]
    /// Conversations of each bot waiting in a flow (on an `ask`).
    public var activeFlows: [String: Int] = [:]

    /// A queue and a ticket status.
    public struct TicketKey: Sendable, Hashable {
        public var queue: String
        public var status: Ticket.Status
    }

    /// An empty summary.
    public init() {}
}

extension BotStore {
    /// Nothing is written behind.
    public func flushWrites() {}

    /// In two steps (a store that keeps nothing across a crash has nothing to tear).
    public nonisolated(nonsending) func assign(_ ticket: Ticket) async throws {
        try await update(ticket)
        if let agent = ticket.agent { try await setLastAssigned(queue: ticket.queue, agent: agent) }
    }

    /// In two steps, as `assign`.
    public nonisolated(nonsending) func update(_ ticket: Ticket, state: ConversationState?) async throws {
        try await update(ticket)
        try save(state, bot: ticket.bot, channel: ticket.channel)
    }

    /// Saves (or with nil, forgets) a conversation's state.
    public func save(_ state: ConversationState?, bot: String, channel: String) throws {
        try save(state, bot: bot, channel: channel, handled: nil)
    }
}

