import Foundation

// MARK: - Receiving

extension ChatClient {
    func handle(_ event: TransportEvent) {
        switch event {
        case .message(let envelope): receive(envelope)
        case .reaction(let reaction): emit(.reaction(reaction, applyReaction(reaction)))
        case .membership(let membership): emit(.membership(membership))
        case .connection(let reported): transition { $0.transportReported(reported) }
        }
    }

    /// Duplicates (same message id) are dropped. Seqs increase within a channel, so a message
    /// above the channel's last seq is new without a look-up; one at or below it (a resend, a
    /// catch-up, an echo, an out-of-order arrival) is checked against recent ids and history.
    func isDuplicate(_ envelope: Envelope) -> Bool {
        if envelope.seq > conversationList.lastSeq(of: envelope.channel),
           !conversationList.hasEvicted || conversationList[envelope.channel] != nil {
            // noPersist messages are not in history: remember their ids for the slow path
            // (without history `record` notes every message).
            if keepsHistory, envelope.flags.contains(.noPersist) { seen.insert(envelope.id) }
            return false
        }
        if seen.contains(envelope.id) { return true }
        if keepsHistory {
            // History not yet written is looked up where it waits, not flushed first: the echo
            // of every send lands here (its seq was recorded from the receipt), and a commit per
            // echo would undo the write-behind batching.
            if pendingWrites.contains(where: { $0.id == envelope.id }) { return true }
            if (try? store.contains(id: envelope.id, channel: envelope.channel, seq: envelope.seq)) == true { return true }
        } else if recentIDs.contains(id: envelope.id, seq: envelope.seq, in: envelope.channel) {
            return true
        }
        seen.insert(envelope.id)
        return false
    }

    func receive(_ envelope: Envelope) {
        guard !isDuplicate(envelope) else { return }
        var message: Message
        do {
            message = try Message(envelope: envelope, registry: configuration.registry)
        } catch {
            var failure = ParleyError.wrapping(error, as: .invalidContent)
            failure.context["messageID"] = envelope.id
            failure.context["channel"] = envelope.channel.target
            report(failure)
            return
        }
        profiles.notePreview(id: envelope.sender, name: message.senderName, avatar: message.senderAvatar)
        let own = envelope.sender == userID
        // The payload history keeps when a notice or the filter replaced the content.
        var replaced: JSONValue?
        if !own, let visible = envelope.visibleTo, !visible.contains(userID) {
            switch configuration.hiddenMessages {
            case .drop: return
            case .notice(let text):
                message.content = TextContent(text)
                replaced = message.content.encoded()
            }
        }
        if let filter {
            switch filter(message) {
            case .drop: return
            case .deliver(let filtered):
                message = filtered
                replaced = filtered.content.encoded()
            }
        }
        record(message, countsAsUnread: !own) {
            var stored = envelope
            if let replaced { stored.payload = replaced }
            return stored
        }
        // This account's own messages are the result of its sends, not news.
        if !own { emit(.message(message)) }
    }

    /// Applies a reaction to the cached or stored message; the updated message if found.
    func applyReaction(_ reaction: ReactionEvent) -> Message? {
        let now = configuration.clock.now()
        var message = cache.message(id: reaction.messageID, now: now)
        if message == nil, keepsHistory {
            // Not flushed to be read: this batch's messages must not reach the history before
            // the event handler has them (see `handlerRunning`).
            let envelope = pendingWrites.last { $0.id == reaction.messageID } ?? (try? store.message(id: reaction.messageID, in: reaction.channel))
            message = envelope.flatMap { try? Message(envelope: $0, registry: configuration.registry) }
        }
        guard var message else { return nil }
        message.apply(reaction)
        cache.update(message)
        if !message.flags.contains(.noPersist) {
            pendingWrites.append(message.envelope)
            scheduleFlush()
        }
        return message
    }

    /// Remembers a message: cache, conversation list, history (write-behind, group commit);
    /// without history, the conversation list and its id. `envelope` is what history keeps
    /// (built only when it does).
    func record(_ message: Message, countsAsUnread: Bool, updatesConversation: Bool = true, envelope: () -> Envelope) {
        if updatesConversation { recordInConversation(message, countsAsUnread: countsAsUnread) }
        guard keepsHistory else {
            recentIDs.insert(id: message.id, seq: message.seq, in: message.channel)
            if persistsConversations { scheduleFlush() }
            return
        }
        // A cache of no entries (memory storage) spares reading the clock.
        if cache.limits.count > 0 { cache.insert(message, at: configuration.clock.now()) }
        if !message.flags.contains(.noPersist) { pendingWrites.append(envelope()) }
        scheduleFlush()
    }

    func recordInConversation(_ message: Message, countsAsUnread: Bool) {
        conversationList.record(channel: message.channel, messageID: message.id, seq: message.seq, timestamp: message.timestamp,
                                digest: message.content.digest, countsAsUnread: countsAsUnread)
        // Once an eighth over the limit, so each conversation pays the sort once. Changes not
        // yet saved keep their conversation until a later round.
        if let limit = configuration.conversationLimit, conversationList.count > limit + max(1, limit / 8) {
            recentIDs.forget(conversationList.evict(keeping: limit))
        }
    }

    /// Writes pending history at the next chance (or now, once enough has piled up).
    func scheduleFlush() {
        // In memory a write is an append under a lock: cheaper done now than batched by a
        // task that yields up to 16 times first (that batching pays off for SQLite only).
        if !persistsConversations || (pendingWrites.count >= 1024 && !handlerRunning) {
            flushWrites()
            return
        }
        guard !flushScheduled else { return }
        flushScheduled = true
        Task {
            // Let the inbound loop take what the transport has buffered first, so one
            // transaction carries many messages (history is write-behind: the server has them).
            for _ in 0..<16 where pendingWrites.count < 1024 { await Task.yield() }
            // While the handler has a batch, its delivery writes history when it returns.
            if flushScheduled && !handlerRunning { self.flushWrites() }
        }
    }

    /// Writes pending history and changed conversations in one go.
    func flushWrites() {
        flushScheduled = false
        let conversations = persistsConversations ? conversationList.takeDirty() : []
        // Saved from `pendingWrites` itself and emptied after (the store copies what it
        // keeps): a copy taken first would make the emptying allocate a new buffer per flush.
        let saved: Result<Void, any Error> = Result { try store.save(pendingWrites, conversations: conversations) }
        pendingWrites.removeAll(keepingCapacity: true)
        if case .failure(let error) = saved { report(ParleyError.wrapping(error, as: .storage)) }
    }
}
