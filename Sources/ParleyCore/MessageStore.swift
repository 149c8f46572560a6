import Synchronization

/// Where a client keeps message history and its conversation list.
/// Called from the `ChatClient` actor; implementations lock for themselves.
public protocol MessageStore: Sendable {
    /// Inserts messages, or updates an existing id (its reactions change).
    func save(_ messages: [Envelope]) throws
    /// Messages of `channel` with seq in `range`, oldest first, at most `limit` (the newest
    /// `limit` of the range when it holds more).
    func history(of channel: Channel, in range: ClosedRange<Int64>, limit: Int) throws -> [Envelope]
    /// One message by server id.
    func message(id: String) throws -> Envelope?
    /// Inserts or replaces conversations.
    func saveConversations(_ conversations: [Conversation]) throws
    /// Every stored conversation.
    func conversations() throws -> [Conversation]
}

/// History kept in memory (nothing survives the process).
public final class MemoryMessageStore: MessageStore {
    private struct State {
        var byChannel: [Channel: [Envelope]] = [:]
        var location: [String: (channel: Channel, index: Int)] = [:]
        var conversations: [Channel: Conversation] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    public func save(_ messages: [Envelope]) throws {
        state.withLock { state in
            for message in messages {
                if let (channel, index) = state.location[message.id] {
                    state.byChannel[channel]?[index] = message
                    continue
                }
                // In place: copying the channel's array per message would be quadratic.
                let index = Self.insert(message, into: &state.byChannel[message.channel, default: []])
                state.location[message.id] = (message.channel, index)
                if let list = state.byChannel[message.channel], index < list.count - 1 {
                    // Out of order (rare): what moved up gets its new index.
                    for position in (index + 1)..<list.count { state.location[list[position].id] = (message.channel, position) }
                }
            }
        }
    }

    /// Inserts by seq (almost always an append); returns the index.
    private static func insert(_ message: Envelope, into list: inout [Envelope]) -> Int {
        var index = list.count
        while index > 0, list[index - 1].seq > message.seq { index -= 1 }
        if index == list.count { list.append(message) } else { list.insert(message, at: index) }
        return index
    }

    public func history(of channel: Channel, in range: ClosedRange<Int64>, limit: Int) throws -> [Envelope] {
        state.withLock { state in
            let matching = (state.byChannel[channel] ?? []).filter { range.contains($0.seq) }
            return Array(matching.suffix(max(0, limit)))
        }
    }

    public func message(id: String) throws -> Envelope? {
        state.withLock { state in
            guard let (channel, index) = state.location[id] else { return nil }
            return state.byChannel[channel]?[index]
        }
    }

    public func saveConversations(_ conversations: [Conversation]) throws {
        state.withLock { state in
            for conversation in conversations { state.conversations[conversation.channel] = conversation }
        }
    }

    public func conversations() throws -> [Conversation] {
        state.withLock { Array($0.conversations.values) }
    }
}
