import Foundation
import ParleyCore

/// One broadcast as stored: who sends what to how many, and how far it got.
public struct BroadcastJob: Sendable, Hashable {
    /// Where a job is in its life.
    public enum State: String, Sendable, Hashable {
        /// Stored, sending not finished (also after a crash: resumed on start).
        case running
        /// Stopped by an operator until resumed; not resumed at start.
        case paused
        /// Every recipient is sent or failed.
        case finished
        /// Stopped for good by an operator: its pending recipients are never sent to.
        case cancelled

        /// Nothing more will be sent: finished or cancelled.
        public var isEnded: Bool { self == .finished || self == .cancelled }
    }

    /// The job id (a UUID string, or a name given with `parley broadcast --id`).
    public var id: String
    /// The bot (account) that sends.
    public var bot: String
    /// What started it: `schedule:NAME`, `action`, `cli`.
    public var origin: String
    /// The message with its recipient placeholders.
    public var message: BroadcastMessage
    /// The job's own rate limit in messages per second; nil for none (the global cap still applies).
    public var ratePerSecond: Double?
    public var state: State
    public var created: Date
    /// When it finished or was cancelled.
    public var finished: Date?
    /// Recipients in total, and how many are sent / failed so far.
    public var total: Int
    public var sent: Int
    public var failed: Int
    /// The audience whose members it was sent to (`audience:`), or nil.
    public var audience: String?
    /// Members of its audience who opted out while it ran: not sent to, not failed.
    public var optedOut: Int = 0

    /// Recipients neither sent, failed nor opted out yet (a cancelled job's included: stored as pending).
    public var pending: Int { max(0, total - sent - failed - optedOut) }
    /// Recipients a cancel left unsent for good: a cancelled job's pending ones.
    public var cancelled: Int { state == .cancelled ? pending : 0 }
}

/// What happened to one recipient.
public enum BroadcastOutcome: Sendable, Hashable {
    /// The server holds the message (id as the server gave it).
    case sent(messageID: String)
    /// Given up: the reason, as `code: message`.
    case failed(reason: String)
    /// Not sent: the recipient left the job's audience before their turn.
    case optedOut
}

/// One recipient of a job and its state.
public struct BroadcastRecipient: Sendable, Hashable {
    /// Position in the job (0-based, the order of the audience).
    public var position: Int
    public var channel: Channel
    /// nil while pending.
    public var outcome: BroadcastOutcome?
    /// Transport attempts made.
    public var attempts: Int
    /// This recipient's own payload, when the job has one per recipient (rendered by the
    /// engine for a `broadcast:` action); nil: the job's message rendered for them.
    public var payload: JSONValue?

    /// Creates a recipient record.
    public init(position: Int, channel: Channel, outcome: BroadcastOutcome? = nil, attempts: Int = 0, payload: JSONValue? = nil) {
        self.position = position
        self.channel = channel
        self.outcome = outcome
        self.attempts = attempts
        self.payload = payload
    }
}
