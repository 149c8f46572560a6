import Foundation
import ParleyCore

extension MatrixTransport {
    /// Long-polls until cancelled. Transient failures (server gone, 5xx, timeouts, 429) are
    /// retried with doubling backoff; a rejected token ends the stream. The next `/sync` waits
    /// while the consumer is more than `eventBufferLimit` events behind: the server keeps what
    /// is new meanwhile, so memory stays bounded and nothing is dropped.
    func syncLoop() async {
        var delay = config.reconnectBackoff.initial
        while !Task.isCancelled {
            await backlog?.waitForRoom()
            if Task.isCancelled { return }
            let started = config.clock.now()
            do {
                try await syncOnce(timeout: config.syncTimeout)
                setState(.connected)
                delay = config.reconnectBackoff.initial
                let rest = config.minimumSyncInterval.timeInterval - config.clock.now().timeIntervalSince(started)
                if rest > 0 { try await config.clock.sleep(for: .milliseconds(Int64(rest * 1000))) }
            } catch {
                if Task.isCancelled { return }
                let error = error as? ParleyError ?? ParleyError(.serverError, "\(error)")
                if error.code == .unauthorized {
                    config.log("sync of \(userID) stopped: \(error)")
                    setState(.disconnected)
                    endStream()
                    return
                }
                let wait = max(delay, error.retryAfter ?? .zero)
                config.log("sync of \(userID) failed (\(error)); retrying in \(wait)")
                setState(.reconnecting)
                do { try await config.clock.sleep(for: wait) } catch { return }
                delay = min(delay * 2, config.reconnectBackoff.max)
            }
        }
    }

    /// One `/sync` round: fetch, handle every room, then persist `next_batch`. Without a stored
    /// position (a fresh start) old messages are marked seen instead of delivered.
    func syncOnce(timeout: Duration) async throws {
        let since = try await store.session(userID: userID).since
        // Synapse answers a repeated /sync request (same device, since, filter) from a cache for
        // two minutes. A fresh start of the same device within that time would get the stale
        // answer and later deliver everything since then as new; a one-off inline filter
        // (same meaning, new text) makes the fresh start's request unique.
        let filter = since == nil
            ? SyncFilter.make(timelineLimit: config.timelineLimit, uniqueMarker: UUID().uuidString).jsonString()
            : filterID
        let response = try await client.sync(filterID: filter, since: since, timeout: timeout, margin: config.syncMargin)
        try Task.checkCancellation()
        guard let next = response["next_batch"]?.stringValue else {
            throw ParleyError(.serverError, "sync answer lacks next_batch")
        }
        try await handle(response, fresh: since == nil)
        try Task.checkCancellation()
        try await store.saveSince(userID: userID, since: next)
    }

    private func handle(_ response: JSONValue, fresh: Bool) async throws {
        for event in response["account_data"]?["events"]?.arrayValue ?? [] where event["type"]?.stringValue == "m.direct" {
            applyDirect(event["content"] ?? [:])
        }
        let rooms = response["rooms"]
        for (room, info) in (rooms?["join"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            joinedRooms.insert(room)
            try await handleJoined(room: room, info: info, fresh: fresh)
        }
        for (room, info) in (rooms?["leave"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            if !fresh {
                for event in info["timeline"]?["events"]?.arrayValue ?? [] { try await handleEvent(event, room: room) }
            }
            forget(room)
        }
        for (room, info) in (rooms?["invite"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            try await handleInvite(room: room, info: info)
        }
    }

    private func handleJoined(room: String, info: JSONValue, fresh: Bool) async throws {
        let timeline = info["timeline"]?["events"]?.arrayValue ?? []
        for event in (info["state"]?["events"]?.arrayValue ?? []) + timeline
        where event["type"]?.stringValue == "m.room.encryption" {
            markEncrypted(room)
        }
        if fresh {
            try await store.markSeen(timeline.compactMap { $0["event_id"]?.stringValue }, room: room)
        } else {
            var events = timeline
            if info["timeline"]?["limited"]?.boolValue == true, let prev = info["timeline"]?["prev_batch"]?.stringValue {
                events = try await backfill(room: room, from: prev) + events
            }
            for event in eventsSinceOwnArrival(events) { try await handleEvent(event, room: room) }
        }
        if !timeline.isEmpty { try await store.pruneSeen(room: room, keep: Self.seenPerRoom) }
    }

    /// In a room this account just joined, drops the history from before its invite (or join
    /// when it was not invited): a bot joining an old room must not answer old commands.
    private func eventsSinceOwnArrival(_ events: [JSONValue]) -> [JSONValue] {
        guard let join = events.lastIndex(where: { isOwnMembership($0, "join") }) else { return events }
        let start = events[..<join].lastIndex(where: { isOwnMembership($0, "invite") }) ?? join
        return Array(events[start...])
    }

    /// Whether `event` moves this account into `membership` (not a profile change while joined).
    func isOwnMembership(_ event: JSONValue, _ membership: String) -> Bool {
        event["type"]?.stringValue == "m.room.member" && event["state_key"]?.stringValue == userID
            && event["content"]?["membership"]?.stringValue == membership
            && event["unsigned"]?["prev_content"]?["membership"]?.stringValue != membership
    }

    /// Pages `/messages` backwards from `prev_batch` until an event already handled (or this
    /// account's arrival), and returns the missed events oldest first.
    private func backfill(room: String, from token: String) async throws -> [JSONValue] {
        var missed: [JSONValue] = []
        var from = token
        for _ in 0..<config.maxBackfillPages {
            let page = try await client.messages(room: room, from: from, direction: "b", limit: 100, filter: SyncFilter.backfill)
            let chunk = page["chunk"]?.arrayValue ?? []
            for event in chunk {
                if let id = event["event_id"]?.stringValue, try await store.isSeen(id) { return missed.reversed() }
                missed.append(event)
                if isOwnMembership(event, "invite") || isOwnMembership(event, "join") && !joinedBefore(event) {
                    return missed.reversed()
                }
            }
            guard let end = page["end"]?.stringValue, !chunk.isEmpty, end != from else { return missed.reversed() }
            from = end
        }
        config.log("backfill of \(room) stopped after \(config.maxBackfillPages) pages; older missed events are skipped")
        return missed.reversed()
    }

    private func joinedBefore(_ event: JSONValue) -> Bool {
        event["unsigned"]?["prev_content"]?["membership"]?.stringValue == "invite"
    }

    /// An invite: report it, then join or decline by the policy. A direct invite joins `m.direct`.
    private func handleInvite(room: String, info: JSONValue) async throws {
        let own = (info["invite_state"]?["events"]?.arrayValue ?? []).last {
            $0["type"]?.stringValue == "m.room.member" && $0["state_key"]?.stringValue == userID
        }
        let inviter = own?["sender"]?.stringValue ?? ""
        let isDirect = own?["content"]?["is_direct"]?.boolValue == true
        let channel: Channel = isDirect && !inviter.isEmpty ? .person(inviter) : .group(room)
        emit(.membership(MembershipEvent(channel: channel, user: userID, change: .invited, by: inviter.isEmpty ? nil : inviter)))
        let invite = MatrixConfiguration.Invite(roomID: room, inviter: inviter, isDirect: isDirect)
        let full = joinedRooms.count >= config.maxRooms
        if full {
            config.log("declined the invite to \(room) from \(inviter): this account is in \(joinedRooms.count) rooms, the most max_rooms allows")
        }
        do {
            if !full, config.invitePolicy(invite) {
                try await client.join(room)
                joinedRooms.insert(room)
                if isDirect, !inviter.isEmpty { try await addDirectRoom(room, with: inviter) }
            } else {
                try await client.leave(room: room)
            }
        } catch let error as ParleyError where !error.isTransient {
            config.log("answering the invite to \(room) from \(inviter) failed: \(error)")
        }
    }

    /// Adds `room` to this account's `m.direct` under `user` (read fresh, so other clients'
    /// entries survive).
    func addDirectRoom(_ room: String, with user: String) async throws {
        var content = try await client.accountData(userID: userID, type: "m.direct")?.objectValue ?? [:]
        var rooms = content[user]?.arrayValue ?? []
        guard !rooms.contains(.string(room)) else { return applyDirect(.object(content)) }
        rooms.append(.string(room))
        content[user] = .array(rooms)
        try await client.setAccountData(userID: userID, type: "m.direct", content: .object(content))
        applyDirect(.object(content))
    }

    func markEncrypted(_ room: String) {
        encryptedRooms[room] = true
        warnEncrypted(room)
    }
}
