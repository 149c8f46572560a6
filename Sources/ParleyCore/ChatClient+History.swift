import Foundation

// MARK: - History and conversations

extension ChatClient {
    /// Messages of `channel` with seq in `range`, oldest first, at most `limit` (the newest).
    /// Stored messages whose content no longer decodes come back as `UnknownContent`.
    public func history(of channel: Channel, in range: ClosedRange<Int64> = 0...Int64.max, limit: Int = 50) throws -> [Message] {
        flushWrites()
        return try store.history(of: channel, in: range, limit: limit).map(decodeStored)
    }

    /// A message by id: from the recent-message cache, else from history.
    public func message(id: String) throws -> Message? {
        if let cached = cache.message(id: id, now: configuration.clock.now()) { return cached }
        flushWrites()
        return try store.message(id: id).map(decodeStored)
    }

    /// A stored envelope as a message; a payload that no longer decodes (a card type removed
    /// since) comes back as `UnknownContent` with the raw payload.
    private func decodeStored(_ envelope: Envelope) -> Message {
        if let message = try? Message(envelope: envelope, registry: configuration.registry) { return message }
        let raw = envelope.payload.objectValue ?? [:]
        return Message(id: envelope.id, channel: envelope.channel, seq: envelope.seq, clientMessageID: envelope.clientMessageID,
                       sender: envelope.sender, timestamp: envelope.timestamp,
                       content: UnknownContent(typeCode: raw["type"]?.intValue ?? 0, raw: raw), flags: envelope.flags,
                       replyTo: envelope.replyTo, reactions: envelope.reactions, visibleTo: envelope.visibleTo,
                       extensions: envelope.extensions)
    }

    /// The conversation list: pinned first, then by last activity.
    public func conversations() -> [Conversation] { conversationList.sorted }

    /// One conversation, if any.
    public func conversation(_ channel: Channel) -> Conversation? { conversationList[channel] }

    /// Unread messages over all conversations.
    public var totalUnread: Int { conversationList.byChannel.values.reduce(0) { $0 + $1.unreadCount } }

    /// Clears `channel`'s unread count. Throws `notFound` if there is no such conversation.
    public func markRead(_ channel: Channel) throws {
        guard conversationList.markRead(channel) else { throw Self.noConversation(channel) }
        scheduleFlush()
    }

    /// Pins `channel` on top of the list (or unpins it). Throws `notFound` if unknown.
    public func setPinned(_ pinned: Bool, for channel: Channel) throws {
        guard conversationList.setPinned(pinned, for: channel) else { throw Self.noConversation(channel) }
        scheduleFlush()
    }

    /// Creates a conversation that exists only on this client. Its channel must be a
    /// `local:` one; anything else throws `invalidArgument`.
    public func createLocalConversation(_ channel: Channel) throws {
        try conversationList.addLocal(channel, at: configuration.clock.now())
        scheduleFlush()
    }

    /// Adds a message to a local conversation (created if needed), as if this account had
    /// sent it; it is published as a `.message` event but never sent anywhere.
    @discardableResult
    public func insertLocalMessage(_ content: any MessageContent, into channel: Channel, countsAsUnread: Bool = false) throws -> Message {
        try conversationList.addLocal(channel, at: configuration.clock.now())
        let seq = (conversationList[channel]?.lastSeq ?? 0) + 1
        let number = ids.next()
        let message = Message(id: "local-\(number.uuidString)", channel: channel, seq: seq, clientMessageID: number, sender: userID,
                              timestamp: configuration.clock.now(), content: content)
        record(message, countsAsUnread: countsAsUnread) { message.envelope }
        emit(.message(message))
        return message
    }

    /// The number of messages in the recent-message cache.
    public var cachedMessageCount: Int { cache.count }

    static func noConversation(_ channel: Channel) -> ParleyError {
        ParleyError(.notFound, "no conversation \(channel.target)", context: ["channel": channel.target])
    }
}
