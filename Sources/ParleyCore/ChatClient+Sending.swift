import Foundation

// MARK: - Sending

extension ChatClient {
    struct Prepared {
        var item: OutboxItem
        var envelope: OutgoingEnvelope
        var content: any MessageContent
    }

    /// Sends `content` to `channel`; returns the message once the transport accepted it.
    /// Too large a payload throws `messageTooLarge` and nothing is queued.
    public func send(_ content: any MessageContent, to channel: Channel, options: SendOptions = SendOptions()) async throws -> Message {
        try await submitOne(prepare(content, to: channel, options: options, replyTo: nil))
    }

    /// Replies to `message` in its channel, quoting it; interactive priority by default.
    public func reply(to message: Message, with content: any MessageContent, options: SendOptions = .interactive) async throws -> Message {
        try await submitOne(prepare(content, to: message.channel, options: options, replyTo: message.replyReference))
    }

    /// Sends `message`'s content (unknown types unchanged) to `channel` as a new message.
    public func forward(_ message: Message, to channel: Channel, options: SendOptions = SendOptions()) async throws -> Message {
        var options = options
        options.extensions["forward.id"] = .string(message.id)
        options.extensions["forward.sender"] = .string(message.sender)
        return try await submitOne(prepare(message.content, to: channel, options: options, replyTo: nil))
    }

    /// Sends an envelope built by the caller through the outbox at `priority` and returns the
    /// server's receipt. Its client message number is the caller's (a durable job that numbers
    /// its messages itself, so a resend after a crash is recognised by the server). It is not
    /// added to this client's history: a broadcast to thousands would crowd it out.
    public func send(_ envelope: OutgoingEnvelope, priority: SendPriority) async throws -> SendReceipt {
        try checkSendable(envelope.payload, to: envelope.channel)
        let item = OutboxItem(operation: .message(envelope), priority: priority, enqueuedAt: configuration.clock.now())
        switch await outbox.submitOne(item) {
        case .success(.sent(let receipt)): return receipt
        case .failure(let error): throw error
        case .success(.reacted): throw ParleyError(.notSent, "the outbox gave no receipt", context: ["channel": envelope.channel.target])
        }
    }

    /// Sends and reactions queued in the outbox and not yet accepted by the server.
    public var queuedSends: Int {
        get async { await outbox.queuedCount }
    }

    /// Sends every content to every channel (channel by channel, contents in order), broadcast
    /// priority by default. One result per pair, in that order; bad pairs fail alone.
    public func batchSend(_ contents: [any MessageContent], to channels: [Channel],
                          options: SendOptions = .broadcast) async -> [Result<Message, ParleyError>] {
        var results: [Result<Message, ParleyError>?] = []
        var prepared: [Prepared] = []
        var slots: [Int] = []
        results.reserveCapacity(contents.count * channels.count)
        prepared.reserveCapacity(contents.count * channels.count)
        // One extensions dictionary shared by the whole batch (copy-on-write), not one per message.
        let extensions = outgoingExtensions(options)
        if options.clientMessageID != nil, contents.count * channels.count > 1 {
            let refused = ParleyError(.invalidArgument, "a client message number names one message; this batch has \(contents.count * channels.count)",
                                      context: ["field": "clientMessageID"])
            return Array(repeating: .failure(refused), count: contents.count * channels.count)
        }
        for channel in channels {
            for content in contents {
                do {
                    prepared.append(try prepare(content, to: channel, options: options, replyTo: nil, extensions: extensions))
                    slots.append(results.count)
                    results.append(nil)
                } catch {
                    results.append(.failure(ParleyError.wrapping(error, as: .invalidArgument)))
                }
            }
        }
        let sent = await submit(prepared)
        for (slot, result) in zip(slots, sent) { results[slot] = result }
        return results.map { $0 ?? .failure(ParleyError(.cancelled, "no result")) }
    }

    /// Adds this account's `emoji` reaction to `message`.
    public func react(_ emoji: String, to message: Message) async throws {
        try await setReaction(emoji, on: message, added: true)
    }

    /// Removes this account's `emoji` reaction from `message`.
    public func unreact(_ emoji: String, from message: Message) async throws {
        try await setReaction(emoji, on: message, added: false)
    }

    private func setReaction(_ emoji: String, on message: Message, added: Bool) async throws {
        guard !emoji.isEmpty else { throw ParleyError(.invalidArgument, "the reaction emoji is empty", context: ["field": "emoji"]) }
        var item = OutboxItem(operation: .reaction(emoji: emoji, messageID: message.id, channel: message.channel, added: added),
                              priority: .interactive, enqueuedAt: configuration.clock.now())
        item.id = ids.next()
        let result = await outbox.submitOne(item)
        if case .failure(let error) = result { throw error }
        _ = applyReaction(ReactionEvent(channel: message.channel, messageID: message.id, emoji: emoji, user: userID, added: added))
    }

    // MARK: - Internals

    /// The send options' extensions plus the sender's name and avatar.
    func outgoingExtensions(_ options: SendOptions) -> [String: JSONValue] {
        options.extensions.isEmpty ? senderExtensions : Self.extensions(options.extensions, sender: configuration.senderProfile)
    }

    /// `extensions` plus the sender's name and avatar.
    static func extensions(_ extensions: [String: JSONValue], sender: Profile?) -> [String: JSONValue] {
        var extensions = extensions
        if let sender {
            if let name = sender.name { extensions["sender.name"] = .string(name) }
            if let avatar = sender.avatar { extensions["sender.avatar"] = .string(avatar) }
        }
        return extensions
    }

    func prepare(_ content: any MessageContent, to channel: Channel, options: SendOptions, replyTo: ReplyReference?,
                 extensions: [String: JSONValue]? = nil) throws -> Prepared {
        let payload = content.encoded()
        try checkSendable(payload, to: channel)
        let extensions = extensions ?? outgoingExtensions(options)
        let envelope = OutgoingEnvelope(channel: channel, clientMessageID: options.clientMessageID ?? ids.next(), payload: payload, flags: options.flags,
                                        replyTo: replyTo, visibleTo: options.visibleTo, extensions: extensions)
        // The outbox stamps the item when it queues it: no clock read here.
        let item = OutboxItem(operation: .message(envelope), priority: options.priority, enqueuedAt: .distantPast)
        return Prepared(item: item, envelope: envelope, content: content)
    }

    /// A local conversation exists only here, and too large a payload is refused before
    /// anything is queued.
    private func checkSendable(_ payload: JSONValue, to channel: Channel) throws {
        guard channel.kind != .local else {
            throw ParleyError(.invalidArgument, "\(channel.target) is a local conversation: it exists only on this client",
                              context: ["channel": channel.target])
        }
        let size = payload.encodedByteCount
        guard size <= transport.payloadLimit else {
            throw ParleyError(.messageTooLarge, "the message to \(channel.target) is \(size) bytes; the transport takes at most \(transport.payloadLimit)",
                              context: ["channel": channel.target, "size": String(size), "limit": String(transport.payloadLimit)])
        }
    }

    /// One message (every send, reply and forward): no arrays around it, no per-channel
    /// bookkeeping.
    func submitOne(_ prepared: Prepared) async throws -> Message {
        switch await outbox.submitOne(prepared.item) {
        case .success(.sent(let receipt)): return recordSent(prepared.envelope, content: prepared.content, receipt: receipt)
        case .success(.reacted): throw Self.reactionAnswer
        case .failure(let error): throw error
        }
    }

    /// A message answered as if it were a reaction (an outbox that broke its contract).
    static var reactionAnswer: ParleyError { ParleyError(.serverError, "the outbox answered a message with a reaction result") }

    func submit(_ prepared: [Prepared]) async -> [Result<Message, ParleyError>] {
        let results = await outbox.submit(prepared.map(\.item))
        // One message (every send and reply): no per-channel bookkeeping needed.
        if prepared.count == 1, results.count == 1, case .success(.sent(let receipt)) = results[0] {
            return [.success(recordSent(prepared[0].envelope, content: prepared[0].content, receipt: receipt))]
        }
        var messages: [Result<Message, ParleyError>] = []
        messages.reserveCapacity(prepared.count)
        // The conversation list needs only the newest message of each channel of the batch.
        var newest: [Channel: Message] = [:]
        // By index: iterating `zip` copies every prepared entry (envelope, item and content).
        for (index, result) in results.enumerated() where index < prepared.count {
            switch result {
            case .success(.sent(let receipt)):
                let message = recordSent(prepared[index].envelope, content: prepared[index].content, receipt: receipt, updatesConversation: false)
                if (newest[message.channel]?.seq ?? .min) <= message.seq { newest[message.channel] = message }
                messages.append(.success(message))
            case .success(.reacted):
                messages.append(.failure(Self.reactionAnswer))
            case .failure(let error):
                messages.append(.failure(error))
            }
        }
        for message in newest.values { recordInConversation(message, countsAsUnread: false) }
        return messages
    }

    /// Records an acknowledged send in history and conversations. If its echo was recorded
    /// first, this writes the same id again: the stores and the cache replace by id.
    func recordSent(_ outgoing: OutgoingEnvelope, content: any MessageContent, receipt: SendReceipt,
                    updatesConversation: Bool = true) -> Message {
        let message = Message(id: receipt.messageID, channel: outgoing.channel, seq: receipt.seq, clientMessageID: outgoing.clientMessageID,
                              sender: userID, timestamp: receipt.timestamp, content: content, flags: outgoing.flags,
                              replyTo: outgoing.replyTo, visibleTo: outgoing.visibleTo, extensions: outgoing.extensions)
        record(message, countsAsUnread: false, updatesConversation: updatesConversation) {
            Envelope(id: message.id, channel: message.channel, seq: message.seq, clientMessageID: message.clientMessageID,
                     sender: userID, timestamp: message.timestamp, payload: outgoing.payload, flags: message.flags,
                     replyTo: message.replyTo, visibleTo: message.visibleTo, extensions: message.extensions)
        }
        return message
    }

    /// An item recovered from a previous run finished: record it, or report its failure.
    func recordRecovered(_ item: OutboxItem, _ result: Result<OutboxResult, ParleyError>) {
        switch (item.operation, result) {
        case (.message(let outgoing), .success(.sent(let receipt))):
            guard let content = try? configuration.registry.decode(outgoing.payload) else { return }
            _ = recordSent(outgoing, content: content, receipt: receipt)
        case (_, .failure(let error)):
            var error = error
            error.context["item"] = item.id.uuidString
            report(error)
        default:
            break
        }
    }
}
