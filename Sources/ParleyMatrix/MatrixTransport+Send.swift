import Foundation
import ParleyCore

extension MatrixTransport {
    /// Sends a message as `m.room.message` with txn id = client message id (idempotent).
    /// Sends to one channel run in order; different channels run concurrently.
    /// - Throws: `messageTooLarge` (checked before sending), `invalidContent`, `permissionDenied`
    ///   (encrypted room, not a member), `notFound`, `rateLimited` with `retryAfter`,
    ///   `serverError`, `networkUnavailable`.
    public func send(_ message: OutgoingEnvelope) async throws -> SendReceipt {
        try await queues.run(message.channel.target) { try await self.sendNow(message) }
    }

    /// Sends a batch room by room, up to `concurrentRooms` rooms at once, each in order
    /// (after a transient failure in a room, its later messages are `notSent`).
    public func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] {
        var channels: [Channel] = []
        for message in messages where !channels.contains(message.channel) { channels.append(message.channel) }
        if channels.count > 1 { await shareRoomKeys(for: channels) }
        return await sendBatchByChannel(messages, concurrentChannels: config.concurrentRooms)
    }

    /// A broadcast's next page: its rooms resolved (direct rooms made) and, in encrypted
    /// rooms, their keys shared in one pass before the sends.
    public func prepareSends(to channels: [Channel]) async {
        await shareRoomKeys(for: Array(Set(channels)))
    }

    private func sendNow(_ message: OutgoingEnvelope) async throws -> SendReceipt {
        if let receipt = try await store.receipt(clientMessageID: message.clientMessageID, sender: userID) { return receipt }
        let content = try MatrixContent.encode(
            payload: message.payload, replyTo: message.replyTo, ownUserID: userID,
            textMsgtype: config.sendTextAsNotice ? "m.notice" : "m.text", clientMessageID: message.clientMessageID)
        try checkSize(content, of: message)
        try await ensureSession()
        let room = try await roomID(for: message.channel, create: true)
        let event = try await sealed(content, type: "m.room.message", room: room)
        // Encryption makes the content about a third larger (base64) plus its envelope.
        if event.content != content { try checkSize(event.content, of: message) }
        let eventID = try await client.send(room: room, type: event.type, txnID: message.clientMessageID.uuidString,
                                            content: event.content)
        let envelope = Envelope(id: eventID, channel: message.channel, seq: 0, clientMessageID: message.clientMessageID,
                                sender: userID, timestamp: config.clock.now(), payload: message.payload,
                                replyTo: message.replyTo)
        let receipt = try await store.recordSent(envelope, room: room, replyTo: message.replyTo?.messageID)
        if config.attachVCardFile, message.payload["type"]?.intValue == VCardContent.contentTypeCode {
            await attachVCard(message, room: room, encrypted: rooms.encrypted[room] == true)
        }
        return receipt
    }

    private func checkSize(_ content: JSONValue, of message: OutgoingEnvelope) throws {
        let size = content.jsonData().count
        let limit = payloadLimit - Self.eventOverhead
        guard size <= limit else {
            throw ParleyError(.messageTooLarge, "message content is \(size) bytes of JSON; Matrix takes at most \(limit)",
                              context: ["clientMessageID": message.clientMessageID.uuidString, "channel": message.channel.target])
        }
    }

    /// Adds (`m.reaction` annotation; a duplicate counts as done) or removes (redacts our
    /// reaction event) this account's `emoji` on `messageID`.
    public func setReaction(_ emoji: String, on messageID: String, in channel: Channel, added: Bool) async throws {
        try await queues.run(channel.target) {
            try await self.setReactionNow(emoji, on: messageID, in: channel, added: added)
        }
    }

    private func setReactionNow(_ emoji: String, on messageID: String, in channel: Channel, added: Bool) async throws {
        try await ensureSession()
        let room = try await roomID(for: channel, create: false)
        var existing = try await store.reaction(target: messageID, key: emoji, sender: userID)
        if existing == nil { existing = try await findOwnReaction(emoji, on: messageID, room: room) }
        if added {
            guard existing == nil else { return }
            let content: JSONValue = ["m.relates_to": ["rel_type": "m.annotation", "event_id": .string(messageID), "key": .string(emoji)]]
            let event = try await sealed(content, type: "m.reaction", room: room)
            do {
                // A fresh txn id: a reaction removed and added again is a new event.
                let id = try await client.send(room: room, type: event.type, txnID: UUID().uuidString, content: event.content)
                try await store.recordReaction(eventID: id, room: room, target: messageID, key: emoji, sender: userID)
            } catch let error as ParleyError where error.matrixErrcode == .duplicateAnnotation {
                return  // Already there (sent by an earlier run): done.
            }
        } else if let existing {
            _ = try await refuseUnserved(room)  // Redactions stay in clear, as Matrix requires.
            try await client.redact(room: room, eventID: existing, txnID: UUID().uuidString)
            try await store.forgetReaction(eventID: existing)
        }
    }

    /// Our reaction with `key` on `messageID` according to the server (made before this
    /// database existed, or while the answer was lost).
    private func findOwnReaction(_ key: String, on messageID: String, room: String) async throws -> String? {
        let reactions = try await client.relations(room: room, eventID: messageID, relType: "m.annotation", eventType: "m.reaction")
        guard let own = reactions.first(where: {
            $0["sender"]?.stringValue == userID && $0["content"]?["m.relates_to"]?["key"]?.stringValue == key
        }), let id = own["event_id"]?.stringValue else { return nil }
        try await store.recordReaction(eventID: id, room: room, target: messageID, key: key, sender: userID)
        return id
    }

    /// Reads the joined rooms and `m.direct` again, or waits for the read under way.
    private func rereadRooms() async throws {
        if let roomsReread { return try await roomsReread.value }
        let task = Task { try await self.loadRooms() }
        roomsReread = task
        defer { roomsReread = nil }
        try await task.value
    }

    /// The room of a channel: a group's room id (an alias is resolved), a person's direct room
    /// (created with an invite and added to `m.direct` when `create` and there is none).
    public func roomID(for channel: Channel, create: Bool = false) async throws -> String {
        try await ensureSession()
        switch channel.kind {
        case .group where channel.id.hasPrefix("!"):
            return channel.id
        case .group where channel.id.hasPrefix("#"):
            if let room = rooms.aliases[channel.id] { return room }
            let room = try await client.resolveAlias(channel.id)
            rooms.aliases[channel.id] = room
            return room
        case .person where channel.id.hasPrefix("@") && channel.id.contains(":"):
            if !rooms.joinedLoaded { try await loadRooms() }
            if let room = rooms.directRoom(with: channel.id) { return room }
            guard create else {
                throw ParleyError(.notFound, "no direct room with \(channel.id)", context: ["channel": channel.target])
            }
            if config.rereadsRoomsBeforeCreating {
                try await rereadRooms()
                if let room = rooms.directRoom(with: channel.id) { return room }
            }
            try await adoptOrphanedDirectRooms()
            if let room = rooms.directRoom(with: channel.id) { return room }
            let room = try await makeDirectRoom(with: channel.id)
            try await addDirectRoom(room, with: channel.id)
            return room
        default:
            throw ParleyError(.invalidArgument,
                              "Matrix channels are user:@name:server, group:!room:server or group:#alias:server, not \(channel.target)",
                              context: ["channel": channel.target])
        }
    }
}
