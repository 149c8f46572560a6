import YAMLCoding

/// `handoff:` — how this bot's queues are staffed, and what the customer gets when a ticket
/// is resolved.
public struct HandoffPolicy: YAMLNodeDecodable, Sendable {
    /// Queues by name (those the bot hands off to, and those tickets escalate to).
    public var queues: OrderedMap<QueuePolicy>
    /// `FLOW.STEP` started for the customer when their ticket is resolved (a survey).
    public var onResolve: Located<String>?

    /// Reads `queues` and `on_resolve`.
    public init(yaml reader: NodeReader) throws {
        try reader.expectMapping()
        queues = reader.decodeIfPresent(OrderedMap<QueuePolicy>.self, forKey: "queues") ?? OrderedMap()
        onResolve = reader.decodeIfPresent(Located<String>.self, forKey: "on_resolve")
    }
}

/// One queue of `handoff.queues`: who works it, how tickets are assigned, when an untaken
/// ticket is announced again and moved on.
public struct QueuePolicy: YAMLNodeDecodable, Sendable {
    /// How a new ticket finds an agent.
    public enum Assignment: String, Sendable, CaseIterable {
        /// Agents take tickets themselves (`take N`).
        case manual
        /// The next available agent in turn.
        case roundRobin = "round_robin"
        /// The available agent holding the fewest taken tickets.
        case leastBusy = "least_busy"
    }

    /// Who works the queue (user ids); default: every member of its channel.
    public var agents: [Located<String>]?
    /// `manual` (default), `round_robin` or `least_busy`.
    public var assign: Located<String>?
    /// After this long untaken, the ticket is announced again in the queue (once).
    public var remindAfter: Located<String>?
    /// After this long untaken, the ticket moves to `escalate_to` (once).
    public var escalateAfter: Located<String>?
    /// The queue an untaken ticket moves to.
    public var escalateTo: Located<String>?
    /// When agents work the queue (`{timezone, open}`); absent: always.
    public var hours: OpeningHoursSpec?
    /// Actions for the customer when a hand-off arrives out of hours (`{{queue.opens}}`).
    public var closed: Located<ActionList>?
    /// Where the mapping starts.
    public var mark: Mark

    /// Reads the queue's mapping.
    public init(yaml reader: NodeReader) throws {
        mark = reader.mark
        try reader.expectMapping()
        agents = reader.decodeIfPresent([Located<String>].self, forKey: "agents")
        assign = reader.decodeIfPresent(Located<String>.self, forKey: "assign")
        remindAfter = reader.decodeIfPresent(Located<String>.self, forKey: "remind_after")
        escalateAfter = reader.decodeIfPresent(Located<String>.self, forKey: "escalate_after")
        escalateTo = reader.decodeIfPresent(Located<String>.self, forKey: "escalate_to")
        hours = reader.decodeIfPresent(OpeningHoursSpec.self, forKey: "hours")
        closed = reader.decodeIfPresent(Located<ActionList>.self, forKey: "closed")
    }

    /// The assignment policy (`manual` when absent or invalid, which validation reports).
    public var assignment: Assignment { assign.flatMap { Assignment(rawValue: $0.value) } ?? .manual }
}
