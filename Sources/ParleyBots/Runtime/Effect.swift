import Foundation

/// One thing the executor does, fully decided by the `Planner`: texts already rendered,
/// targets already resolved. The planner is pure; effects are where I/O starts. Codable: the
/// rest of a plan after a `wait` is stored with the conversation and survives a restart.
enum Effect: Sendable, Hashable, Codable {
    /// Send a content to the current conversation (`to` nil) or a target; `quote` quotes
    /// the triggering message.
    case send(OutgoingContent, to: String?, quote: Bool)
    case react(String)
    case unreact(String)
    /// Open a hand-off ticket in `group:<queue>`.
    case handoff(queue: String, note: String)
    /// Run the rest of the plan after `Duration`.
    case wait(Duration)
    /// Arm the timeout of the `ask` the conversation now waits on.
    case armTimeout(StepPosition, Date)
    /// A content to each of several targets (rendered per recipient).
    case broadcast([BroadcastItem])
    /// A log line about the decision (a regex over its limit, a loop cut short).
    case log(LogLevel, String, [String: String])
    /// Opt `user` in to (or out of) the bot's audience of this name.
    case audience(String, user: String, subscribed: Bool)
}

/// A content before it becomes a `MessageContent`: text, or a card by name with its
/// rendered fields (a vCard's `user` is filled from profiles by the executor).
enum OutgoingContent: Sendable, Hashable, Codable {
    case text(String)
    case card(name: String, fields: [String: String])
}

/// One recipient of a `broadcast` effect and the content rendered for them.
struct BroadcastItem: Sendable, Hashable, Codable {
    var target: String
    var content: OutgoingContent
}

/// What the planner decided: effects in order, and the conversation's new state.
struct Plan: Sendable {
    var effects: [Effect]
    var state: ConversationState
    /// Which rule decided (`ask`, `command help`, `trigger 2`, `fallback`, …), for logs.
    var route: String
}
