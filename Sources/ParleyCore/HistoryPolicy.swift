/// Whether a `ChatClient` keeps the messages it sends and receives.
public enum HistoryPolicy: Sendable, Hashable {
    /// History (a recent window in memory, complete with SQLite) and the decoded message
    /// cache: `history(of:)` and `message(id:)` answer from them.
    case kept
    /// Nothing of a message is kept but its id and seq, which drop a repeat of one of the
    /// newest `memoryHistoryLimit` messages of its channel (as the history's window would in
    /// memory): `history(of:)` is empty, `message(id:)` nil, a reaction event carries no
    /// message. For a consumer that never reads history back (a bot host), it spares a store
    /// write per message. Conversations, events and sends are unchanged.
    case ids
}
