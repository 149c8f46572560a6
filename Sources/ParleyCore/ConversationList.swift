import Foundation

/// The conversation list as a value: ordered by pin, then last activity.
public struct ConversationList: Sendable {
    private(set) var byChannel: [Channel: Conversation] = [:]
    /// Channels changed since the last `takeDirty()` (to persist), if changes are tracked.
    private var dirty: Set<Channel> = []
    private let tracksChanges: Bool

    /// A list of `conversations`; `tracksChanges` when they are persisted (`takeDirty`).
    public init(_ conversations: [Conversation] = [], tracksChanges: Bool = false) {
        self.tracksChanges = tracksChanges
        for conversation in conversations { byChannel[conversation.channel] = conversation }
    }

    /// Pinned first, then the most recent activity first; ties by channel for a stable order.
    public var sorted: [Conversation] {
        byChannel.values.sorted { lhs, rhs in
            if lhs.isPinned != rhs.isPinned { return lhs.isPinned }
            if lhs.lastActivity != rhs.lastActivity { return lhs.lastActivity > rhs.lastActivity }
            return lhs.channel < rhs.channel
        }
    }

    /// The conversation of `channel`, if any.
    public subscript(channel: Channel) -> Conversation? { byChannel[channel] }

    /// How many conversations there are.
    public var count: Int { byChannel.count }

    /// The highest seq recorded in `channel` (0 if none).
    public func lastSeq(of channel: Channel) -> Int64 { byChannel[channel]?.lastSeq ?? 0 }

    /// Notes a message; `countsAsUnread` for messages from others.
    public mutating func record(channel: Channel, messageID: String, seq: Int64, timestamp: Date, digest: String, countsAsUnread: Bool) {
        // In place: one hash lookup per message.
        Self.update(&byChannel[channel, default: Conversation(channel: channel, lastActivity: timestamp)],
                    messageID: messageID, seq: seq, timestamp: timestamp, digest: digest, countsAsUnread: countsAsUnread)
        if tracksChanges { dirty.insert(channel) }
    }

    private static func update(_ conversation: inout Conversation, messageID: String, seq: Int64, timestamp: Date, digest: String,
                               countsAsUnread: Bool) {
        // An older message (catch-up out of order) does not replace a newer preview.
        if seq >= conversation.lastSeq || timestamp >= conversation.lastActivity {
            conversation.lastActivity = max(conversation.lastActivity, timestamp)
            conversation.digest = digest
            conversation.lastMessageID = messageID
            conversation.lastSeq = max(conversation.lastSeq, seq)
        }
        if countsAsUnread { conversation.unreadCount += 1 }
    }

    /// Clears the unread count; false if there is no such conversation.
    @discardableResult
    public mutating func markRead(_ channel: Channel) -> Bool {
        guard byChannel[channel] != nil else { return false }
        byChannel[channel]?.unreadCount = 0
        if tracksChanges { dirty.insert(channel) }
        return true
    }

    /// Pins or unpins; false if there is no such conversation.
    @discardableResult
    public mutating func setPinned(_ pinned: Bool, for channel: Channel) -> Bool {
        guard byChannel[channel] != nil else { return false }
        byChannel[channel]?.isPinned = pinned
        if tracksChanges { dirty.insert(channel) }
        return true
    }

    /// Adds an empty local conversation. Only `local:` channels may be added this way.
    public mutating func addLocal(_ channel: Channel, at now: Date) throws {
        guard channel.kind == .local else {
            throw ParleyError(.invalidArgument, "'\(channel.target)' is not a local conversation id: local ids start with 'local:'",
                              context: ["channel": channel.target])
        }
        guard byChannel[channel] == nil else { return }
        byChannel[channel] = Conversation(channel: channel, lastActivity: now)
        if tracksChanges { dirty.insert(channel) }
    }

    /// True once `evict(keeping:)` dropped a conversation: an unknown channel may then be one
    /// seen before, so its messages are no longer new by seq alone.
    public private(set) var hasEvicted = false

    /// Drops the least recently active conversations beyond `limit` (never a pinned one, nor
    /// one changed and not yet taken to be saved); returns their channels.
    mutating func evict(keeping limit: Int) -> [Channel] {
        let excess = byChannel.count - limit
        guard excess > 0 else { return [] }
        let candidates = byChannel.values.filter { !$0.isPinned && !dirty.contains($0.channel) }
            .sorted { $0.lastActivity < $1.lastActivity }.prefix(excess).map(\.channel)
        for channel in candidates { byChannel.removeValue(forKey: channel) }
        if !candidates.isEmpty { hasEvicted = true }
        return candidates
    }

    /// The conversations changed since the last call.
    mutating func takeDirty() -> [Conversation] {
        defer { dirty.removeAll(keepingCapacity: true) }
        return dirty.compactMap { byChannel[$0] }
    }
}
