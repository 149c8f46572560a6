import Synchronization

/// What a Matrix flow test's exact idle rests on: every event the bot's connection relayed,
/// plus the people's messages the server accepted that the bot's connection has not relayed
/// yet, matched by event id. By id, not by a count of sends: the bot is waited for until it
/// has taken the very message the test sent, whatever else its connection relays meanwhile
/// (a count that one unmatched event can offset would let idle come one message early).
final class MatrixIdleCounters: Sendable {
    private struct State {
        /// The bot's current connection (a restart makes a new one).
        var connection = 0
        /// Events the bot's current connection relayed, all of them.
        var relayed = 0
        /// Ids of people's messages the server accepted and the bot's connection has not relayed.
        var awaited: Set<String> = []
        /// Ids of people's messages relayed before their sender's send returned.
        var early: Set<String> = []
        /// People's reactions the server accepted minus those relayed (reactions have no id
        /// at the sender); below zero while the relay is ahead of the senders.
        var reactions = 0
    }

    private let state = Mutex(State())

    /// What the bot's connection must have handed over before the bot can be idle.
    var deliveredEventCount: Int {
        state.withLock { $0.relayed + $0.awaited.count + max(0, $0.reactions) }
    }

    /// The bot has a new connection (at the start, and at each restart): its relay count starts
    /// over, as the count of the restarted bot's own does, and the connection's number is what
    /// its relays report. What is owed stays owed. Relays of an older connection are not
    /// counted: its last events (its own "disconnected", say) can pass the relay after the new
    /// count began, and a count the restarted bot never takes kept idle from coming (the
    /// flow story with a restart after every move hung at the step after a restart, about one
    /// run in fifteen).
    func newConnection() -> Int {
        state.withLock { state in
            state.connection += 1
            state.relayed = 0
            return state.connection
        }
    }

    /// A person's message with server id `id` was accepted.
    func sent(messageID id: String) {
        state.withLock { state in
            if state.early.remove(id) == nil { state.awaited.insert(id) }
        }
    }

    /// A person's reaction was accepted.
    func sentReaction() { state.withLock { $0.reactions += 1 } }

    /// The bot's connection number `connection` relayed an event: a person's message
    /// (`personMessage`, its id), a person's added reaction (`personReaction`), or anything
    /// else. Ignored from a connection that is not the current one.
    func relayed(on connection: Int, personMessage id: String? = nil, personReaction: Bool = false) {
        state.withLock { state in
            guard connection == state.connection else { return }
            state.relayed += 1
            if let id, state.awaited.remove(id) == nil { state.early.insert(id) }
            if personReaction { state.reactions -= 1 }
        }
    }
}
