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
    /// One message by server id, when its channel is known (a store may look only there).
    func message(id: String, in channel: Channel) throws -> Envelope?
    /// True if the message with this id (at this seq in this channel) is stored.
    func contains(id: String, channel: Channel, seq: Int64) throws -> Bool
    /// Inserts or replaces conversations.
    func saveConversations(_ conversations: [Conversation]) throws
    /// Every stored conversation.
    func conversations() throws -> [Conversation]
    /// Saves messages and conversations together; a store that can makes it one transaction.
    func save(_ messages: [Envelope], conversations: [Conversation]) throws
}

extension MessageStore {
    /// The id alone finds it (stores with an index by id).
    public func message(id: String, in channel: Channel) throws -> Envelope? {
        try message(id: id)
    }

    /// Two separate writes, for stores with nothing to gain from joining them.
    public func save(_ messages: [Envelope], conversations: [Conversation]) throws {
        try save(messages)
        try saveConversations(conversations)
    }
}

/// History kept in memory (nothing survives the process): per channel, an array sorted by
/// seq, at most `limitPerChannel` newest messages. Saving is an append in the usual case;
/// look-ups by id scan (newest first; `message(id:in:)` only the one channel), which saves
/// an index entry per message. A memory client uses it as its recent-message cache too.
public final class MemoryMessageStore: MessageStore {
    private struct State {
        var byChannel: [Channel: [Envelope]] = [:]
        var conversations: [Channel: Conversation] = [:]
    }

    private let state = Mutex(State())
    /// The newest messages kept per channel.
    public let limitPerChannel: Int

    /// An empty store.
    public init(limitPerChannel: Int = .max) {
        self.limitPerChannel = max(1, limitPerChannel)
    }

    public func save(_ messages: [Envelope]) throws {
        state.withLock { state in
            // One dictionary access per run of messages to the same channel (the usual batch).
            var start = messages.startIndex
            while start < messages.endIndex {
                let channel = messages[start].channel
                var end = start + 1
                while end < messages.endIndex, messages[end].channel == channel { end += 1 }
                // In place: copying the channel's array per message would be quadratic.
                Self.upsert(messages[start..<end], into: &state.byChannel[channel, default: []], limit: limitPerChannel)
                start = end
            }
        }
    }

    /// Appends (the usual case), replaces the same id at the same seq, or inserts in order.
    private static func upsert(_ messages: ArraySlice<Envelope>, into list: inout [Envelope], limit: Int) {
        for message in messages { upsert(message, into: &list, limit: limit) }
    }

    private static func upsert(_ message: Envelope, into list: inout [Envelope], limit: Int) {
        guard let lastSeq = list.last?.seq, lastSeq >= message.seq else {
            list.append(message)
            // Trimmed in steps of a quarter of the limit: each trim moves `limit` messages,
            // so this costs four moves per message and holds at most 1.25 × limit. Reads see
            // only the newest `limit`.
            if list.count - limit > max(1, limit / 4) { list.removeFirst(list.count - limit) }
            return
        }
        var index = firstIndex(ofSeq: message.seq, in: list)
        while index < list.count, list[index].seq == message.seq {
            if list[index].id == message.id {
                list[index] = message
                return
            }
            index += 1
        }
        list.insert(message, at: index)
    }

    /// Binary search: the first index whose seq is at least `seq`.
    private static func firstIndex(ofSeq seq: Int64, in list: [Envelope]) -> Int {
        var low = 0, high = list.count
        while low < high {
            let middle = (low + high) / 2
            if list[middle].seq < seq { low = middle + 1 } else { high = middle }
        }
        return low
    }

    public func history(of channel: Channel, in range: ClosedRange<Int64>, limit: Int) throws -> [Envelope] {
        state.withLock { state in
            let matching = (state.byChannel[channel] ?? []).suffix(limitPerChannel).filter { range.contains($0.seq) }
            return Array(matching.suffix(max(0, limit)))
        }
    }

    public func message(id: String) throws -> Envelope? {
        state.withLock { state in
            for list in state.byChannel.values {
                if let found = list.last(where: { $0.id == id }) { return found }
            }
            return nil
        }
    }

    /// Scans only `channel`, newest first: the message a reaction is about is usually recent.
    public func message(id: String, in channel: Channel) throws -> Envelope? {
        state.withLock { $0.byChannel[channel]?.last { $0.id == id } }
    }

    public func contains(id: String, channel: Channel, seq: Int64) throws -> Bool {
        state.withLock { state in
            guard let list = state.byChannel[channel] else { return false }
            var index = Self.firstIndex(ofSeq: seq, in: list)
            while index < list.count, list[index].seq == seq {
                if list[index].id == id { return true }
                index += 1
            }
            return false
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
