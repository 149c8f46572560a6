import Foundation

/// One entry of the conversation list.
public struct Conversation: Sendable, Hashable {
    public var channel: Channel
    /// The time of the last message (or of creation for an empty local conversation).
    public var lastActivity: Date
    /// The last message's digest (`MessageContent.digest`).
    public var digest: String
    public var lastMessageID: String?
    public var lastSeq: Int64
    /// Messages from others since the last `markRead`.
    public var unreadCount: Int
    public var isPinned: Bool

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
