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
                let delivered = try await syncOnce(timeout: config.syncTimeout)
                let now = config.clock.now()
                lastSync.withLock { $0 = now }
                setState(.connected)
                delay = config.reconnectBackoff.initial
                // After a sync that brought work the next one starts at once: more may be waiting.
                // One that brought nothing (most often only this account's own echoes, which wake
                // the long-poll too) is spaced, so the echoes of a run of sends share one sync.
                let rest = config.minimumSyncInterval.timeInterval - config.clock.now().timeIntervalSince(started)
                if !delivered, rest > 0 { try await config.clock.sleep(for: .milliseconds(Int64(rest * 1000))) }
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

    /// One `/sync` round: fetch, handle every room, then persist what it handled with
    /// `next_batch` in one commit and hand its events on. Without a stored position (a fresh
    /// start) old messages are marked seen instead of delivered. Returns whether it handed the
    /// consumer any event.
    @discardableResult
    func syncOnce(timeout: Duration) async throws -> Bool {
        let since: String?
        switch syncPosition {
        case .unread: since = try await store.session(userID: userID).since
        case .known(let saved): since = saved
        }
        let emittedBefore = emittedCount
        // Synapse answers a repeated /sync request (same device, since, filter) from a cache for
        // two minutes. A fresh start of the same device within that time would get the stale
        // answer and later deliver everything since then as new; a one-off inline filter
        // (same meaning, new text) makes the fresh start's request unique.
        let filter = since == nil
            ? SyncFilter.make(userID: userID, timelineLimit: config.timelineLimit, uniqueMarker: UUID().uuidString).jsonString()
            : filterID
        let response = try await client.sync(filterID: filter, since: since, timeout: timeout, margin: config.syncMargin)
        syncCount += 1
        try Task.checkCancellation()
        guard let next = response["next_batch"]?.stringValue else {
            throw ParleyError(.serverError, "sync answer lacks next_batch")
        }
        syncBatch = SyncBatch()
        try await handle(response, fresh: since == nil)
        try Task.checkCancellation()
        try await commitSyncBatch(since: next)
        syncPosition = .known(next)
        return emittedCount != emittedBefore
    }

    /// Where the next `/sync` starts.
    enum SyncPosition {
        /// Not read from the store yet.
        case unread
        /// The saved `next_batch` (nil: none saved, a fresh start).
        case known(String?)
    }

    private func handle(_ response: JSONValue, fresh: Bool) async throws {
        // Room keys (to-device) first: the room events of this same answer may need them.
        try await handleEncryption(of: response)
        for event in response["account_data"]?["events"]?.arrayValue ?? [] where event["type"]?.stringValue == "m.direct" {
            rooms.applyDirect(event["content"] ?? [:])
        }
        let changed = response["rooms"]
        for (room, info) in (changed?["join"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            rooms.joined.insert(room)
            try await handleJoined(room: room, info: info, fresh: fresh)
        }
        for (room, info) in (changed?["leave"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            if !fresh {
                for event in info["timeline"]?["events"]?.arrayValue ?? [] { try await handleEvent(event, room: room) }
            }
            forget(room)
        }
        for (room, info) in (changed?["invite"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            try await handleInvite(room: room, info: info)
        }
    }

    private func handleJoined(room: String, info: JSONValue, fresh: Bool) async throws {
        let timeline = info["timeline"]?["events"]?.arrayValue ?? []
        let state = info["state"]?["events"]?.arrayValue ?? []
        for event in state + timeline where event["type"]?.stringValue == "m.room.encryption" {
            markEncrypted(room, settings: event["content"])
        }
        // The filter leaves this account's own events out of the timeline: its arrival in a
        // room shows in the `state` section (a newly joined room comes with its state).
        let ownJoins = state.filter { isOwnMembership($0, "join") }
        if fresh {
            markHandled((ownJoins + timeline).compactMap { $0["event_id"]?.stringValue }, room: room)
        } else {
            var events = timeline
            if info["timeline"]?["limited"]?.boolValue == true, !reachesBeforeArrival(timeline),
               let prev = info["timeline"]?["prev_batch"]?.stringValue {
                events = try await backfill(room: room, from: prev) + events
            }
            for event in ownJoins + eventsSinceOwnArrival(events) { try await handleEvent(event, room: room) }
        }
        // Pruned once a tenth of the kept ids is new, not after every sync: a prune is a write.
        rooms.unprunedSeen[room, default: 0] += timeline.count
        if rooms.unprunedSeen[room, default: 0] >= Self.seenPerRoom / 10 {
            try await store.pruneSeen(room: room, keep: Self.seenPerRoom)
            rooms.unprunedSeen[room] = 0
        }
    }

    /// This account's membership when `event` was sent (`unsigned.membership`, Matrix 1.11):
    /// "join", "invite", "leave", …; nil from a server that does not say.
    private func membership(at event: JSONValue) -> String? {
        event["unsigned"]?["membership"]?.stringValue
    }

    /// Whether a limited timeline already starts before this account's arrival (its first event
    /// was sent while the account was out): then nothing since the arrival is missing.
    private func reachesBeforeArrival(_ timeline: [JSONValue]) -> Bool {
        guard let first = timeline.first.flatMap(membership(at:)) else { return false }
        return first != "join" && first != "invite"
    }

    /// Drops the history from before this account's invite (or join when it was not invited):
    /// a bot joining an old room must not answer old commands. By `unsigned.membership` where
    /// the server gives it; otherwise from this account's last join in `events` (from a
    /// backfill, which has the account's own events).
    private func eventsSinceOwnArrival(_ events: [JSONValue]) -> [JSONValue] {
        if events.contains(where: { membership(at: $0) != nil }) {
            return events.filter { membership(at: $0).map { $0 == "join" || $0 == "invite" } ?? true }
        }
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
                if let id = event["event_id"]?.stringValue, try await isHandled(id) { return missed.reversed() }
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
        let full = rooms.joined.count >= config.maxRooms
        if full {
            config.log("declined the invite to \(room) from \(inviter): this account is in \(rooms.joined.count) rooms, the most max_rooms allows")
        }
        do {
            if !full, config.invitePolicy(invite) {
                try await client.join(room)
                rooms.joined.insert(room)
                if isDirect, !inviter.isEmpty { try await addDirectRoom(room, with: inviter) }
            } else {
                try await client.leave(room: room)
            }
        } catch let error as ParleyError where !error.isTransient {
            config.log("answering the invite to \(room) from \(inviter) failed: \(error)")
        }
    }

    /// Adds `room` to this account's `m.direct` under `user` (read fresh, so other clients'
    /// entries survive). One update at a time: the read-modify-write of concurrent sends to new
    /// users (a broadcast) would otherwise lose rooms, and a lost room is created again.
    func addDirectRoom(_ room: String, with user: String) async throws {
        rooms.ownDirect[room] = user
        try await queues.run("m.direct") { try await self.writeDirectRoom(room, with: user) }
    }

    private func writeDirectRoom(_ room: String, with user: String) async throws {
        try await underAccountDataLock("m.direct") { try await writeDirectRoomNow(room, with: user) }
    }

    /// Runs `body` holding `type` of this account's data among every process acting as the
    /// account (`MatrixConfiguration.accountDataLock`), or at once without such a lock.
    func underAccountDataLock<T>(_ type: String, _ body: () async throws -> T) async throws -> T {
        guard let lock = config.accountDataLock else { return try await body() }
        let key = "\(type) \(userID)"
        try await lock.acquire(key)
        do {
            let result = try await body()
            await lock.release(key)
            return result
        } catch {
            await lock.release(key)
            throw error
        }
    }

    private func writeDirectRoomNow(_ room: String, with user: String) async throws {
        var content = try await client.accountData(userID: userID, type: "m.direct")?.objectValue ?? [:]
        var userRooms = content[user]?.arrayValue ?? []
        guard !userRooms.contains(.string(room)) else { return rooms.applyDirect(.object(content)) }
        userRooms.append(.string(room))
        content[user] = .array(userRooms)
        try await client.setAccountData(userID: userID, type: "m.direct", content: .object(content))
        rooms.applyDirect(.object(content))
    }
}
