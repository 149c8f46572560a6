import Foundation

/// What a bot remembers about one conversation: where a flow waits, the conversation's
/// variables, and whether humans have it. Persisted (as JSON) so a restart resumes mid-flow.
public struct ConversationState: Codable, Sendable, Equatable {
    /// The flow and step whose `ask` waits for the user's answer.
    public var waiting: StepPosition?
    /// When the waiting `ask` times out.
    public var deadline: Date?
    /// `{{vars.NAME}}`.
    public var vars: [String: String]
    /// The hand-off ticket while human agents have the conversation (the bot stays silent).
    public var ticket: Int?
    /// Rests of plans after a `wait`, not yet run.
    var delayed: [DelayedPlan] = []

    /// A fresh conversation.
    public init(waiting: StepPosition? = nil, deadline: Date? = nil, vars: [String: String] = [:], ticket: Int? = nil) {
        self.waiting = waiting
        self.deadline = deadline
        self.vars = vars
        self.ticket = ticket
    }

    /// True while a hand-off pauses the bot here.
    public var isPaused: Bool { ticket != nil }

    /// The earliest moment a timer of this conversation is due: its `ask` timeout or a
    /// delayed plan. Nil when nothing waits on the clock.
    public var nextTimer: Date? {
        delayed.reduce(deadline) { earliest, plan in min(earliest ?? plan.due, plan.due) }
    }

    private enum CodingKeys: String, CodingKey { case waiting, deadline, vars, ticket, delayed }

    /// Decodes a stored state; one stored before delayed plans were kept has none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        waiting = try container.decodeIfPresent(StepPosition.self, forKey: .waiting)
        deadline = try container.decodeIfPresent(Date.self, forKey: .deadline)
        vars = try container.decode([String: String].self, forKey: .vars)
        ticket = try container.decodeIfPresent(Int.self, forKey: .ticket)
        delayed = try container.decodeIfPresent([DelayedPlan].self, forKey: .delayed) ?? []
    }
}

/// A step of a flow.
public struct StepPosition: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The flow's name.
    public var flow: String
    /// The step's name.
    public var step: String

    /// Creates a position.
    public init(flow: String, step: String) {
        self.flow = flow
        self.step = step
    }

    public var description: String { "\(flow).\(step)" }
}
