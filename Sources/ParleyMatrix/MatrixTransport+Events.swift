import Foundation
import ParleyCore

extension MatrixTransport {
    /// Names the event ids of Matrix messages that carry no Parley client message id.
    static let eventNamespace = UUID(uuidString: "6f1c8a52-8c1e-4d0b-9a57-3b8e2c7d4f10") ?? UUID()

    /// Handles one room event exactly once (already seen events are skipped).
    func handleEvent(_ event: JSONValue, room: String) async throws {
        guard let id = event["event_id"]?.stringValue, let type = event["type"]?.stringValue,
              let sender = event["sender"]?.stringValue
        else { return }
        if try await isHandled(id) { return }
        if type == "m.room.encryption" { markEncrypted(room, settings: event["content"]) }
        if type == "m.room.encrypted", rooms.encrypted[room] != true { markEncrypted(room, settings: nil) }
        guard try await serves(room) else {
            // Nothing from a refused room is delivered (see the type's documentation).
            return markHandled([id], room: room)
        }
        if type == "m.room.encrypted" {
            guard let decrypted = await decryptOrHold(event, id: id, room: room) else { return }
            return try await handleDecrypted(decrypted, id: id, sender: sender, room: room)
        }
        try await handleDecrypted(event, id: id, sender: sender, room: room)
    }

    /// Handles a plain event, or an encrypted one once decrypted (its type and content).
    func handleDecrypted(_ event: JSONValue, id: String, sender: String, room: String) async throws {
        switch event["type"]?.stringValue ?? "" {
        case "m.room.message": try await handleMessage(event, id: id, sender: sender, room: room)
        case "m.reaction": try await handleReaction(event, id: id, sender: sender, room: room)
        case "m.room.redaction": try await handleRedaction(event, id: id, room: room)
        case "m.room.member": await handleMember(event, id: id, sender: sender, room: room)
        default: markHandled([id], room: room)
        }
    }

    /// The channel an event of `room` by `sender` belongs to (direct rooms: the sender).
    func channel(room: String, sender: String) -> Channel {
        rooms.direct[room] != nil ? .person(sender) : .group(room)
    }

    private func handleMessage(_ event: JSONValue, id: String, sender: String, room: String) async throws {
        let content = event["content"] ?? [:]
        guard let decoded = MatrixContent.decode(content) else { return markHandled([id], room: room) }
        let timestamp = Date(timeIntervalSince1970: Double(event["origin_server_ts"]?.intValue ?? 0) / 1000)
        if sender == userID {
            // Our own echo. A send whose answer was lost is recorded here, by its transaction id.
            let txn = event["unsigned"]?["transaction_id"]?.stringValue.flatMap(UUID.init(uuidString:))
            if let txn, try await store.receipt(clientMessageID: txn, sender: userID) == nil {
                let own = Envelope(id: id, channel: outgoingChannel(room: room), seq: 0, clientMessageID: txn, sender: userID,
                                   timestamp: timestamp, payload: decoded.payload)
                _ = syncBatch.writes.record(own, room: room, replyTo: decoded.replyEventID)
            }
            return markHandled([id], room: room)
        }
        let envelope = Envelope(
            id: id, channel: channel(room: room, sender: sender), seq: 0,
            clientMessageID: decoded.clientMessageID ?? UUID(namespace: Self.eventNamespace, name: id),
            sender: sender, timestamp: timestamp, payload: decoded.payload,
            replyTo: try await replyReference(decoded.replyEventID, room: room), extensions: ["matrix.room": .string(room)])
        deliver(envelope, room: room, replyTo: decoded.replyEventID)
    }

    /// The channel our own messages in `room` were sent to.
    private func outgoingChannel(room: String) -> Channel {
        rooms.direct[room].map(Channel.person) ?? .group(room)
    }

    /// The original of a reply: from the record, else fetched from the server (seq 0 when it was
    /// never seen here); nil when it cannot be had. An original from this same sync is
    /// committed first, for its sequence number.
    private func replyReference(_ eventID: String?, room: String) async throws -> ReplyReference? {
        guard let eventID else { return nil }
        if syncBatch.writes.message(eventID) != nil { try await commitSyncBatch(since: nil) }
        if let original = try? await store.message(eventID) {
            return ReplyReference(messageID: eventID, seq: original.seq, sender: original.sender, quoted: original.payload)
        }
        guard let original = try? await client.event(room: room, eventID: eventID) else {
            return ReplyReference(messageID: eventID, seq: 0, sender: "", quoted: .null)
        }
        let quoted = original["content"].flatMap(MatrixContent.decode)?.payload ?? .null
        return ReplyReference(messageID: eventID, seq: 0, sender: original["sender"]?.stringValue ?? "", quoted: quoted)
    }

    private func handleReaction(_ event: JSONValue, id: String, sender: String, room: String) async throws {
        let relation = event["content"]?["m.relates_to"]
        guard relation?["rel_type"]?.stringValue == "m.annotation", let target = relation?["event_id"]?.stringValue,
              let key = relation?["key"]?.stringValue
        else { return markHandled([id], room: room) }
        syncBatch.writes.record(ReactionRecord(eventID: id, room: room, target: target, key: key, sender: sender))
        guard sender != userID else { return }
        let targetSender = await self.sender(of: target, room: room)
        emit(.reaction(ReactionEvent(channel: channel(room: room, sender: sender), messageID: target, emoji: key,
                                     user: sender, added: true, messageSender: targetSender, id: id)))
    }

    /// Who sent `eventID` (a reaction's target): from the record (this sync's too), else from
    /// the server; nil when it cannot be had.
    private func sender(of eventID: String, room: String) async -> String? {
        if let pending = syncBatch.writes.message(eventID) { return pending.envelope.sender }
        if let recorded = try? await store.message(eventID) { return recorded.sender }
        return try? await client.event(room: room, eventID: eventID)["sender"]?.stringValue
    }

    private func handleRedaction(_ event: JSONValue, id: String, room: String) async throws {
        // Room versions up to 10 put `redacts` at the top level, version 11 in the content.
        let redacts = event["content"]?["redacts"]?.stringValue ?? event["redacts"]?.stringValue
        markHandled([id], room: room)
        guard let redacts else { return }
        let recorded = try await store.reaction(eventID: redacts)
        guard let reaction = syncBatch.writes.removeReaction(redacts, recorded: recorded), reaction.sender != userID else { return }
        emit(.reaction(ReactionEvent(channel: channel(room: room, sender: reaction.sender), messageID: reaction.target,
                                     emoji: reaction.key, user: reaction.sender, added: false, id: redacts)))
    }

    private func handleMember(_ event: JSONValue, id: String, sender: String, room: String) async {
        markHandled([id], room: room)
        guard let user = event["state_key"]?.stringValue, let membership = event["content"]?["membership"]?.stringValue else { return }
        await membershipChanged(room: room, membership: membership)
        let previous = event["unsigned"]?["prev_content"]?["membership"]?.stringValue
        let change: MembershipEvent.Change
        switch membership {
        case "join" where previous != "join": change = .joined
        case "invite" where previous != "invite": change = .invited
        case "leave" where sender != user, "ban": change = .kicked
        case "leave": change = .left
        default: return
        }
        // Our own invites are reported from the sync's `invite` section, before we join.
        if user == userID, change == .invited { return }
        if user == userID, change == .kicked || change == .left { rooms.joined.remove(room) }
        var channel = rooms.direct[room].map(Channel.person) ?? .group(room)
        if user == userID, change == .joined, previous == nil, rooms.direct[room] == nil, let peer = await orphanedDirectPeer(room) {
            channel = .person(peer)
        }
        emit(.membership(MembershipEvent(channel: channel, user: user, change: change, by: sender == user ? nil : sender)))
    }

    /// The other user of a direct room this account made whose `m.direct` entry was never
    /// written — the process that made it (a broadcast's send) died first and another took
    /// the bot over — recorded in `m.direct` now; nil for any other room. Such a room is not a
    /// group to greet. Asked only when this account arrives in a room without an invite (it
    /// made the room, or joined a public one by its alias).
    private func orphanedDirectPeer(_ room: String) async -> String? {
        guard let peer = try? await Self.ownDirectPeer(room, client: client, userID: userID) else { return nil }
        do { try await addDirectRoom(room, with: peer) } catch { return nil }
        return peer
    }

    /// Before a direct room is made: the joined rooms outside `m.direct` not asked about yet
    /// are asked whether they are direct rooms this account made whose entry was never written
    /// (see `orphanedDirectPeer`); those are recorded in `m.direct` now. Without this, a
    /// process that takes a dead one's broadcast chunk, or its bot, before its sync has seen
    /// the room, made a second room for the same person. A room is asked about once (a few
    /// at a time); one whose answer did not come is asked again next time.
    func adoptOrphanedDirectRooms() async throws {
        // Concurrent sends to new people (a batch makes 16 rooms at once) share one pass
        // instead of each asking about the same rooms; after waiting for a pass, what it did
        // not ask about (rooms read since) gets a pass of its own. Bounded: a few turns.
        for _ in 0..<4 {
            if let pass = adoptionPass {
                try await pass.value
                continue
            }
            let unknown = rooms.unknownJoined
            guard !unknown.isEmpty else { return }
            let pass = Task { try await self.adopt(unknown.sorted()) }
            adoptionPass = pass
            defer { adoptionPass = nil }
            return try await pass.value
        }
    }

    /// Asks about `candidates` a few at a time and records those found to be direct rooms
    /// this account made.
    private func adopt(_ candidates: [String]) async throws {
        let (client, userID) = (client, userID)
        var found: [(room: String, peer: String)] = []
        try await withThrowingTaskGroup(of: (String, String?).self) { group in
            for (index, room) in candidates.enumerated() {
                if index >= Self.roomsAskedAtOnce, let (room, peer) = try await group.next() {
                    if let peer { found.append((room, peer)) } else { rooms.notOwnDirect.insert(room) }
                }
                group.addTask {
                    // A room the server refuses to tell about (the account left it meanwhile)
                    // is no direct room of ours; a transient failure fails this send, which is
                    // tried again, rather than risk a second room.
                    do {
                        return (room, try await Self.ownDirectPeer(room, client: client, userID: userID))
                    } catch let error as ParleyError where !error.isTransient {
                        return (room, nil)
                    }
                }
            }
            for try await (room, peer) in group {
                if let peer { found.append((room, peer)) } else { rooms.notOwnDirect.insert(room) }
            }
        }
        for (room, peer) in found where rooms.joined.contains(room) {
            try await addDirectRoom(room, with: peer)
        }
    }

    static let roomsAskedAtOnce = 8

    /// The state that marks a direct room this account makes with `user` (its `m.direct`
    /// entry is written after the room is made, and a process can die in between).
    static func directRoomMark(_ user: String) -> JSONValue {
        ["type": .string(directRoomMarkType), "state_key": "", "content": ["user": .string(user)]]
    }

    static let directRoomMarkType = "org.parley.direct"

    /// The user the mark of `room` names (see `directRoomMark`); nil while the room has no
    /// mark; "" for a mark `userID` did not set.
    static func markedPeer(in room: String, client: MatrixClient, userID: String) async throws -> String? {
        do {
            let mark = try await client.request("GET", MatrixClient.clientPath("rooms", room, "state", directRoomMarkType, ""),
                                                query: [("format", "event")])
            guard mark["sender"]?.stringValue == userID else { return "" }
            return mark["content"]?["user"]?.stringValue ?? ""
        } catch let error as ParleyError where error.code == .notFound {
            return nil
        }
    }

    /// The other user of `room` if it is a direct room `userID` made: the user its mark names
    /// (a mark `userID` set: anyone with power in a room could set one naming someone else,
    /// to have that person's messages sent there), or (a room made before the mark) its one
    /// other member, invited as direct by `userID`.
    static func ownDirectPeer(_ room: String, client: MatrixClient, userID: String) async throws -> String? {
        if let marked = try await markedPeer(in: room, client: client, userID: userID), !marked.isEmpty { return marked }
        let answer = try await client.request("GET", MatrixClient.clientPath("rooms", room, "members"), query: [("not_membership", "leave")])
        let others = (answer["chunk"]?.arrayValue ?? []).filter { $0["state_key"]?.stringValue != userID }
        guard others.count == 1, let other = others.first, let peer = other["state_key"]?.stringValue,
              other["sender"]?.stringValue == userID, other["content"]?["is_direct"]?.boolValue == true else { return nil }
        return peer
    }
}
