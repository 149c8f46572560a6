/// What a `ChatClient` tells its subscribers.
public enum ChatEvent: Sendable {
    /// A new message (after duplicate dropping, visibility and the filter hook).
    case message(Message)
    /// A reaction was added or removed; the message with its updated reactions if known.
    case reaction(ReactionEvent, Message?)
    case membership(MembershipEvent)
    case connectionState(ConnectionState)
    /// Something failed in the background (an undecodable message, a queued send that failed).
    case error(ParleyError)
}

/// What the filter hook decides for an incoming message.
public enum FilterDecision: Sendable {
    /// Deliver this message (the same one, or a changed one such as a notice).
    case deliver(Message)
    /// Drop it: no event, not stored, not counted.
    case drop
}

/// What to do with a group message whose visibility list does not include this account
/// (servers that cannot filter, such as Matrix rooms, deliver them anyway).
public enum HiddenMessagePolicy: Sendable, Hashable {
    /// Drop it silently.
    case drop
    /// Replace its content with this text notice (and keep nothing of the original content).
    case notice(String)
}
