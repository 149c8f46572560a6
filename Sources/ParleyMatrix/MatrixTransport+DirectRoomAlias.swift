import Foundation
import ParleyCore

/// A direct room this account makes is named by an alias derived from the other user, which
/// makes making it idempotent on the server: Synapse records the alias as soon as it has the
/// room's id, before any of its events, and refuses a second room under it. A process killed
/// while its `/createRoom` was still under way leaves a room the server goes on making; the
/// process that takes its work over asks for the same alias, is refused, and takes that room
/// instead of making a second one — which no rereading of the joined rooms can promise, since
/// the room may not exist yet when it looks.
extension MatrixTransport {
    /// What an alias this account asked for turned out to name.
    enum AliasedRoom {
        /// A direct room this account made with the user, joined and the user invited.
        case ours(String)
        /// Nothing any more: the alias was free, or this account freed it (it had left the
        /// room, or the room was never finished); ask for it again.
        case freed
        /// A room that is not this account's direct room with the user, under an alias this
        /// account cannot free: the room is made without an alias.
        case notOurs
    }

    /// The account data holding the key of this account's direct room aliases.
    static let directAliasKeyType = "org.parley.direct_alias_key"

    /// How often a room made elsewhere is looked at while the server is still making it.
    static let aliasedRoomPoll: Duration = .milliseconds(250)

    /// Makes a direct room with `user` under its alias (see the extension's comment), or takes
    /// the room already under it; without an alias when the server refuses aliases to this
    /// account, or the alias names a room not this account's.
    func makeDirectRoom(with user: String) async throws -> String {
        guard !directAliasesRefused else { return try await createDirectRoom(with: user, aliasName: nil) }
        let name = try await directRoomAliasName(for: user)
        // Twice at most: a freed alias is asked for once more; freed again (this account left
        // that room too), the room is made without one.
        attempts: for _ in 0..<2 {
            do {
                return try await createDirectRoom(with: user, aliasName: name)
            } catch let error as ParleyError where Self.isAliasTaken(error) {
                switch try await aliasedRoom("#\(name):\(serverName)", peer: user) {
                case .ours(let room): return room
                case .freed: continue attempts
                case .notOurs: break attempts
                }
            } catch let error as ParleyError where error.code == .permissionDenied {
                // The server's alias rules (`alias_creation_rules`) refuse this account.
                let room = try await createDirectRoom(with: user, aliasName: nil)
                directAliasesRefused = true
                config.log("\(userID) may not create room aliases (\(error.message)): its direct rooms are made without one, so a process killed while making one can leave a second room for the same person")
                return room
            }
        }
        return try await createDirectRoom(with: user, aliasName: nil)
    }

    /// Makes a direct room with `user` (invited), marked as this account's (see
    /// `directRoomMark`), under `aliasName` when given, not yet in `m.direct`.
    private func createDirectRoom(with user: String, aliasName: String?) async throws -> String {
        let initialState = directRoomInitialState
        var state = initialState + [Self.directRoomMark(user)]
        var body: [String: JSONValue] = ["is_direct": true, "invite": [.string(user)], "preset": "trusted_private_chat"]
        if let aliasName {
            body["room_alias_name"] = .string(aliasName)
            // The alias is for this account alone: without an empty canonical alias the server
            // sets it as the room's, and clients show it as the room's name instead of the bot's.
            state.append(["type": "m.room.canonical_alias", "state_key": "", "content": [:]])
        }
        body["initial_state"] = .array(state)
        let room = try await client.createRoom(.object(body))
        rooms.joined.insert(room)
        if let encryption = initialState.first { markEncrypted(room, settings: encryption["content"]) } else { rooms.encrypted[room] = false }
        rooms.members[room] = [userID, user].sorted()
        return room
    }

    /// Synapse refuses a taken alias with `M_ROOM_IN_USE` when it sees it taken before making
    /// the room, and with a bare 409 when another request took it meanwhile.
    static func isAliasTaken(_ error: ParleyError) -> Bool {
        error.matrixErrcode == .roomInUse || error.context["status"] == "409"
    }

    /// The room under `alias` if it is this account's direct room with `peer`: waits (up to
    /// `directRoomSettleTimeout`) while the server is still making it — this account is not in
    /// it yet, or its mark not set yet — and invites `peer` if the invite has not been sent
    /// yet (an encrypted message's key goes only to the members it finds). A room this account
    /// left, or one never finished, has its alias freed.
    func aliasedRoom(_ alias: String, peer: String) async throws -> AliasedRoom {
        let room: String
        do {
            room = try await client.resolveAlias(alias)
        } catch let error as ParleyError where error.code == .notFound {
            return .freed
        }
        let deadline = config.clock.now().addingTimeInterval(config.directRoomSettleTimeout.timeInterval)
        while true {
            let membership = try await ownMembership(in: room)
            // The server sends the room's initial state (the mark) after this account's join.
            let mark = membership == "join" ? try await Self.markedPeer(in: room, client: client, userID: userID) : nil
            switch (membership, mark) {
            case ("join", .some(let marked)):
                guard marked == peer else { return .notOurs }
                let members = try await client.joinedAndInvitedMembers(room: room)
                if !members.contains(peer) { try await client.invite(room: room, user: peer) }
                rooms.joined.insert(room)
                rooms.members[room] = Array(Set(members + [peer, userID])).sorted()
                return .ours(room)
            case ("leave", _), ("ban", _):
                return try await freeAlias(alias)
            case (nil, _), ("join", nil):
                guard config.clock.now() >= deadline else {
                    try await config.clock.sleep(for: Self.aliasedRoomPoll)
                    continue
                }
                config.log("the room \(room) under \(alias) was not finished within \(config.directRoomSettleTimeout): its alias is freed for a new room")
                return try await freeAlias(alias)
            default:
                // Invited, or knocking: a room someone else made; or a mark not this account's.
                return .notOurs
            }
        }
    }

    /// This account's membership of `room` as the room's state has it; nil while it is not
    /// in the room's state (the server is still making the room).
    private func ownMembership(in room: String) async throws -> String? {
        do {
            return try await client.state(room: room, type: "m.room.member", key: userID)?["membership"]?.stringValue
        } catch let error as ParleyError where error.code == .permissionDenied {
            return nil
        }
    }

    /// Deletes `alias` (this account made it), or reports it is not this account's to free.
    private func freeAlias(_ alias: String) async throws -> AliasedRoom {
        do {
            try await client.deleteAlias(alias)
            return .freed
        } catch let error as ParleyError where error.code == .notFound {
            return .freed
        } catch let error as ParleyError where error.code == .permissionDenied {
            return .notOurs
        }
    }

    /// The localpart of the alias of this account's direct room with `user`: an HMAC of both
    /// under a key in this account's own account data. Aliases resolve for anyone (over
    /// federation too); one computed from the two ids alone would tell anyone who guesses a
    /// user whether the bot talks with them.
    func directRoomAliasName(for user: String) async throws -> String {
        let key = try await directAliasKey()
        return "parley-dm-" + SHA1.hex(SHA1.hmac(key: Array(key.utf8), message: Array("\(userID)\n\(user)".utf8)))
    }

    /// The alias key, read once (or made: the first process of the account to need it), by
    /// one read shared among concurrent sends.
    private func directAliasKey() async throws -> String {
        if let directAliasKeyRead { return try await directAliasKeyRead.value }
        let task = Task { try await self.readOrMakeDirectAliasKey() }
        directAliasKeyRead = task
        do {
            return try await task.value
        } catch {
            directAliasKeyRead = nil
            throw error
        }
    }

    private func readOrMakeDirectAliasKey() async throws -> String {
        // Processes sharing the account (a cluster) make it under the account data lock, so
        // that two of them never use two keys.
        try await underAccountDataLock(Self.directAliasKeyType) { try await storedOrNewDirectAliasKey() }
    }

    private func storedOrNewDirectAliasKey() async throws -> String {
        if let stored = try await client.accountData(userID: userID, type: Self.directAliasKeyType)?["key"]?.stringValue,
           !stored.isEmpty {
            return stored
        }
        let key = SHA1.hex(randomBytes(32))
        try await client.setAccountData(userID: userID, type: Self.directAliasKeyType, content: ["key": .string(key)])
        return key
    }

    /// The server part of this account's id: where its aliases live.
    var serverName: String {
        userID.firstIndex(of: ":").map { String(userID[userID.index(after: $0)...]) } ?? userID
    }

}
