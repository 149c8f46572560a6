import Foundation
import ParleyCore
import ParleyCrypto
import ParleyMatrix

/// Megolm: room messages, and sharing each room's outbound session with its members' devices.
extension MatrixE2EE {
    /// Matrix's defaults when `m.room.encryption` does not set them: a week, 100 messages.
    static let defaultRotation = (period: 604_800_000.0, messages: 100)

    public func decrypt(_ event: JSONValue, room: String) async -> MatrixDecryption {
        let content = event["content"] ?? [:]
        guard content["algorithm"]?.stringValue == Self.megolmAlgorithm, let senderKey = content["sender_key"]?.stringValue,
              let sessionID = content["session_id"]?.stringValue, let ciphertext = content["ciphertext"]?.stringValue
        else { return .failed("not a Megolm event (algorithm \(content["algorithm"]?.stringValue ?? "none"))") }
        let key = InboundKey(room: room, senderKey: senderKey, sessionID: sessionID)
        do {
            guard let session = try await inboundSession(key) else { return .missingKey(sessionID: sessionID) }
            let decrypted = try session.decrypt(ciphertext)
            let plaintext = try JSONValue.parse(decrypted.plaintext)
            if let id = event["event_id"]?.stringValue {
                let index = MessageIndexKey(session: key, index: decrypted.messageIndex)
                let first: String
                if let known = decryptedIndexes[index] {
                    first = known
                } else {
                    first = try await store.firstEvent(openingIndex: decrypted.messageIndex, senderKey: senderKey, sessionID: sessionID,
                                                       eventID: id, at: now())
                    if decryptedIndexes.count >= Self.decryptedIndexLimit { decryptedIndexes = [:] }
                    decryptedIndexes[index] = first
                }
                guard first == id else {
                    return .failed("message index \(decrypted.messageIndex) of session \(sessionID) was event \(first): a replay")
                }
            }
            // The room is inside the ciphertext: an event replayed into another room is refused.
            guard plaintext["room_id"]?.stringValue == room, let type = plaintext["type"]?.stringValue else {
                return .failed("its payload names another room or no type")
            }
            var opened = event.objectValue ?? [:]
            opened["type"] = .string(type)
            opened["content"] = plaintext["content"] ?? [:]
            return .decrypted(.object(opened))
        } catch {
            return .failed("\(error)")
        }
    }

    public func requestKey(for event: JSONValue, room: String, client: MatrixClient) async {
        let content = event["content"] ?? [:]
        guard let device, let sender = event["sender"]?.stringValue, let senderKey = content["sender_key"]?.stringValue,
              let sessionID = content["session_id"]?.stringValue,
              requestedKeys.insert(InboundKey(room: room, senderKey: senderKey, sessionID: sessionID)).inserted
        else { return }
        // The sender's device if the event names it (deprecated, still sent), else all of them.
        let target = content["device_id"]?.stringValue ?? "*"
        let request: JSONValue = [
            "action": "request", "request_id": .string(UUID().uuidString), "requesting_device_id": .string(device.deviceID),
            "body": ["algorithm": .string(Self.megolmAlgorithm), "room_id": .string(room), "sender_key": .string(senderKey),
                     "session_id": .string(sessionID)],
        ]
        do {
            // The bot's other devices too: one that holds the key forwards it if it trusts this one.
            var messages: [String: [String: JSONValue]] = [sender: [target: request]]
            messages[device.userID, default: [:]]["*"] = request
            try await client.sendToDevice(type: "m.room_key_request", messages: messages, txnID: UUID().uuidString)
        } catch {
            log("asking \(sender) for the key of session \(sessionID) failed: \(error)")
        }
    }

    private func inboundSession(_ key: InboundKey) async throws -> MegolmInboundSession? {
        if let known = inbound[key] { return known }
        guard let stored = try await store.inboundGroupSession(roomID: key.room, senderKey: key.senderKey, sessionID: key.sessionID)
        else { return nil }
        if inbound.count >= Self.inboundCacheLimit { inbound = [:] }
        inbound[key] = stored.session
        return stored.session
    }

    public func encrypt(type: String, content: JSONValue, room: String, members: [String], settings: JSONValue,
                        client: MatrixClient) async throws -> JSONValue {
        let device = try started()
        let session = try await outboundSession(room: room, settings: settings, device: device)
        let roomShare = RoomShare(room: room, session: session, members: members)
        if try await needsSharing(roomShare, device: device) { try await shareTogether(roomShare, device: device, client: client) }
        let payload: JSONValue = ["type": .string(type), "content": content, "room_id": .string(room)]
        let ciphertext = try session.encrypt(payload.jsonString())
        // Stored with its new index before the message leaves: no index is used twice.
        try await store.storeOutboundGroupSession(session, roomID: room)
        var sealed: [String: JSONValue] = [
            "algorithm": .string(Self.megolmAlgorithm), "sender_key": .string(device.account.identityKeys.curve25519),
            "ciphertext": .string(ciphertext), "session_id": .string(session.sessionID), "device_id": .string(device.deviceID),
        ]
        // Relations stay readable by the server (aggregation of reactions, reply fallbacks), as Element does.
        if let relation = content["m.relates_to"] { sealed["m.relates_to"] = relation }
        return .object(sealed)
    }

    /// The room's current session, a new one when there is none or the room's rotation
    /// settings (`rotation_period_ms`, `rotation_period_msgs`) retire it.
    private func outboundSession(room: String, settings: JSONValue, device: Device) async throws -> MegolmOutboundSession {
        if outbound[room] == nil, let stored = try await store.outboundGroupSession(roomID: room), outbound[room] == nil {
            outbound[room] = OutboundState(session: stored.session, createdAt: stored.createdAt)
        }
        let period = settings["rotation_period_ms"]?.doubleValue ?? Self.defaultRotation.period
        let messages = Int(settings["rotation_period_msgs"]?.intValue ?? Int64(Self.defaultRotation.messages))
        if let current = outbound[room], Int(current.session.messageIndex) < messages,
           now().timeIntervalSince(current.createdAt) * 1000 < period {
            return current.session
        }
        let session = try MegolmOutboundSession()
        outbound[room] = OutboundState(session: session, createdAt: now())
        try await store.discardOutboundGroupSession(roomID: room)
        try await store.storeOutboundGroupSession(session, roomID: room)
        // This device reads its own messages too (its echoes, a restart's history).
        try await store.storeInboundGroupSession(try MegolmInboundSession(sessionKey: try session.sessionKey()), roomID: room,
                                                 senderKey: device.account.identityKeys.curve25519, sharedBy: device.userID)
        return session
    }

    /// One room's session and the members whose devices must hold its key.
    struct RoomShare {
        let room: String
        let session: MegolmOutboundSession
        let members: [String]
    }

    /// Shares the current session of each room (made when missing) with the devices that lack
    /// it: one device query and one claim for all rooms together, so a broadcast into a batch
    /// of encrypted direct rooms costs a few requests, not some per recipient.
    public func share(rooms: [MatrixRoomKeyShare], client: MatrixClient) async throws {
        let device = try started()
        var shares: [RoomShare] = []
        for room in rooms {
            shares.append(RoomShare(room: room.room, session: try await outboundSession(room: room.room, settings: room.settings, device: device),
                                    members: room.members))
        }
        try await share(shares, device: device, client: client)
    }

    /// Sends each room's session key to every device of its members that does not have it
    /// yet, over Olm, claiming one-time keys (in batches) for devices without a session.
    func share(_ rooms: [RoomShare], device: Device, client: MatrixClient) async throws {
        let devices = Dictionary(grouping: try await devices(of: rooms.flatMap(\.members), client: client), by: \.userID)
        var pending: [(share: RoomShare, targets: [MatrixDevice])] = []
        for share in rooms {
            let targets = try await unshared(share, among: devices, device: device)
            if !targets.isEmpty { pending.append((share, targets)) }
        }
        guard !pending.isEmpty else { return }
        let sessionFor = try await olmSessions(for: pending.flatMap(\.targets), device: device, client: client)
        // A request carries one message per device: a device in several rooms waits for the next.
        var requests: [[(share: RoomShare, target: MatrixDevice)]] = []
        for (share, targets) in pending {
            for target in targets where sessionFor[target.curve25519] != nil {
                let slot = requests.firstIndex { request in
                    request.count < Self.toDevicePerRequest && !request.contains { $0.target == target }
                }
                if let slot { requests[slot].append((share, target)) } else { requests.append([(share, target)]) }
            }
        }
        for request in requests {
            var messages: [String: [String: JSONValue]] = [:]
            for (share, target) in request {
                let roomKey: JSONValue = [
                    "algorithm": .string(Self.megolmAlgorithm), "room_id": .string(share.room),
                    "session_id": .string(share.session.sessionID), "session_key": .string(try share.session.sessionKey()),
                ]
                messages[target.userID, default: [:]][target.deviceID] = try await olmContent(
                    type: "m.room_key", content: roomKey, to: target, with: sessionFor[target.curve25519]!, device: device)
            }
            try await client.sendToDevice(type: "m.room.encrypted", messages: messages, txnID: UUID().uuidString)
            for (room, entries) in Dictionary(grouping: request, by: \.share.room) {
                try await store.markShared(roomID: room, sessionID: entries[0].share.session.sessionID, with: entries.map(\.target))
            }
        }
    }

    /// The devices of `share`'s members (as `devices` lists them by user) that lack its session.
    func unshared(_ share: RoomShare, among devices: [String: [MatrixDevice]], device: Device) async throws -> [MatrixDevice] {
        let shared = try await store.sharedDevices(roomID: share.room, sessionID: share.session.sessionID)
        return Set(share.members).sorted().flatMap { devices[$0] ?? [] }.filter {
            !($0.userID == device.userID && $0.deviceID == device.deviceID)
                && !shared.contains(MatrixDeviceID(userID: $0.userID, deviceID: $0.deviceID))
        }
    }

    /// To-device messages per `/sendToDevice` request (each an Olm message of about 1 KiB).
    static let toDevicePerRequest = 200

    /// An Olm session with each of `targets`: the live one, else one from a claimed one-time
    /// key (all claimed together, in batches). Devices left without one are logged.
    func olmSessions(for targets: [MatrixDevice], device: Device, client: MatrixClient) async throws -> [String: OlmSession] {
        var sessionFor: [String: OlmSession] = [:]
        var unclaimed: [MatrixDevice] = []
        for target in Set(targets).sorted(by: { $0.curve25519 < $1.curve25519 }) {
            if let session = try await sessions(with: target.curve25519).first { sessionFor[target.curve25519] = session } else {
                unclaimed.append(target)
            }
        }
        guard !unclaimed.isEmpty else { return sessionFor }
        let claimed = try await MatrixKeyDirectory.claim(unclaimed, through: client)
        for key in claimed.keys {
            let olm = try OlmSession(outboundFrom: device.account, theirIdentityKey: key.device.curve25519, theirOneTimeKey: key.key)
            try await used(olm, with: key.device.curve25519)
            sessionFor[key.device.curve25519] = olm
        }
        for missing in claimed.missing + claimed.unclaimed {
            log("no one-time key for device \(missing.deviceID) of \(missing.userID): it cannot read the bot's messages for now")
        }
        for rejected in claimed.rejected {
            log("device \(rejected.deviceID) of \(rejected.userID) is left out: \(rejected.reason.rawValue)")
        }
        return sessionFor
    }

    /// The verified devices of `users`, querying those not tracked yet or changed — and with
    /// them every other changed user, so the changes a broadcast's invites announce for many
    /// users (`device_lists.changed`) cost one query, not one per room. A user whose query is
    /// already in flight (a send in another room asked) is not asked again: this waits for
    /// that query, and fails with it.
    func devices(of users: [String], client: MatrixClient) async throws -> [MatrixDevice] {
        var stale = try await store.usersToQuery(among: users)
        if !stale.isEmpty { stale = Array(Set(stale).union(try await store.dirtyUsers())).sorted() }
        if !stale.isEmpty {
            // No suspension from the store's answer to here: the in-flight table is current.
            let others = Set(stale.compactMap { keyQueries[$0] })
            let mine = stale.filter { keyQueries[$0] == nil }
            var task: Task<Void, any Error>?
            if !mine.isEmpty {
                let query = Task { try await self.query(mine, client: client) }
                for user in mine { keyQueries[user] = query }
                task = query
            }
            // Its own query is awaited (and unlisted) first, whatever the others' outcome.
            let result = await task?.result
            for user in mine where keyQueries[user] == task { keyQueries[user] = nil }
            for other in others { try await other.value }
            try result?.get()
        }
        var devices: [MatrixDevice] = []
        for user in Set(users).sorted() { devices += try await store.devices(of: user) }
        return devices
    }

    /// Queries `stale`'s devices and stores them (each user tracked and clean afterwards).
    private func query(_ stale: [String], client: MatrixClient) async throws {
        let result = try await MatrixKeyDirectory.query(stale, through: client)
        for rejected in result.rejected {
            log("device \(rejected.deviceID) of \(rejected.userID) is not trusted: \(rejected.reason.rawValue)")
        }
        let byUser = Dictionary(grouping: result.devices, by: \.userID)
        for user in stale {
            try await store.storeDevices(byUser[user] ?? [], of: user)
        }
        // Storing marked them clean: one that changed meanwhile is asked again next time.
        let again = stale.filter { changedDuringQuery.remove($0) != nil }
        if !again.isEmpty { try await store.markDirty(again) }
    }
}
