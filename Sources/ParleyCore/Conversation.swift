import Foundation

/// One entry of the conversation list.
public struct Conversation: Sendable, Hashable {
    /// The conversation's channel.
    public var channel: Channel
    /// The time of the last message (or of creation for an empty local conversation).
    public var lastActivity: Date
    /// The last message's digest (`MessageContent.digest`).
    public var digest: String
    /// The id of the last message, if any.
    public var lastMessageID: String?
    /// The highest seq seen in the channel.
    public var lastSeq: Int64
    /// Messages from others since the last `markRead`.
    public var unreadCount: Int
    /// Pinned conversations sort on top.
    public var isPinned: Bool

    /// A conversation entry.
    public init(channel: Channel, lastActivity: Date, digest: String = "", lastMessageID: String? = nil,
                lastSeq: Int64 = 0, unreadCount: Int = 0, isPinned: Bool = false) {
        self.channel = channel
        self.lastActivity = lastActivity
        self.digest = digest
        self.lastMessageID = lastMessageID
        self.lastSeq = lastSeq
        self.unreadCount = unreadCount
        self.isPinned = isPinned
    }

    /// True for a conversation that exists only on this client (`local:` ids).
    public var isLocal: Bool { channel.kind == .local }
}
