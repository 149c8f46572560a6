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
            let plaintext = try JSONValue.parse(try session.decrypt(ciphertext).plaintext)
            // The room is inside the ciphertext: an event replayed into another room is refused.
            guard plaintext["room_id"]?.stringValue == room, let type = plaintext["type"]?.stringValue else {
                return .failed("its payload names another room or no type")
            }
            var decrypted = event.objectValue ?? [:]
            decrypted["type"] = .string(type)
            decrypted["content"] = plaintext["content"] ?? [:]
            return .decrypted(.object(decrypted))
        } catch {
            return .failed("\(error)")
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
        try await share(session, room: room, members: members, device: device, client: client)
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

    /// Sends the session's key to every device of `members` that does not have it yet, over
    /// Olm, claiming one-time keys (in batches) for devices without a session.
    private func share(_ session: MegolmOutboundSession, room: String, members: [String], device: Device,
                       client: MatrixClient) async throws {
        let shared = try await store.sharedDevices(roomID: room, sessionID: session.sessionID)
        let targets = try await devices(of: members, client: client).filter {
            !($0.userID == device.userID && $0.deviceID == device.deviceID)
                && !shared.contains(MatrixDeviceID(userID: $0.userID, deviceID: $0.deviceID))
        }
        guard !targets.isEmpty else { return }
        var sessionFor: [String: OlmSession] = [:]
        var unclaimed: [MatrixDevice] = []
        for target in targets {
            if let session = try await sessions(with: target.curve25519).first { sessionFor[target.curve25519] = session } else {
                unclaimed.append(target)
            }
        }
        if !unclaimed.isEmpty {
            let claimed = try await MatrixKeyDirectory.claim(unclaimed, through: client)
            for key in claimed.keys {
                let olm = try OlmSession(outboundFrom: device.account, theirIdentityKey: key.device.curve25519, theirOneTimeKey: key.key)
                try await used(olm, with: key.device.curve25519)
                sessionFor[key.device.curve25519] = olm
            }
            for missing in claimed.missing + claimed.unclaimed {
                log("no one-time key for device \(missing.deviceID) of \(missing.userID): it cannot read \(room) for now")
            }
            for rejected in claimed.rejected {
                log("device \(rejected.deviceID) of \(rejected.userID) is left out of \(room): \(rejected.reason.rawValue)")
            }
        }
        let roomKey: JSONValue = [
            "algorithm": .string(Self.megolmAlgorithm), "room_id": .string(room),
            "session_id": .string(session.sessionID), "session_key": .string(try session.sessionKey()),
        ]
        var messages: [String: [String: JSONValue]] = [:]
        var reached: [MatrixDevice] = []
        for target in targets {
            guard let olm = sessionFor[target.curve25519] else { continue }
            messages[target.userID, default: [:]][target.deviceID] = try await olmContent(
                type: "m.room_key", content: roomKey, to: target, with: olm, device: device)
            reached.append(target)
        }
        guard !reached.isEmpty else { return }
        try await client.sendToDevice(type: "m.room.encrypted", messages: messages, txnID: UUID().uuidString)
        try await store.markShared(roomID: room, sessionID: session.sessionID, with: reached)
    }

    /// The verified devices of `users`, querying those not tracked yet or changed. A user
    /// whose query is already in flight (a send in another room asked) is not asked again:
    /// this waits for that query, and fails with it.
    private func devices(of users: [String], client: MatrixClient) async throws -> [MatrixDevice] {
        let stale = try await store.usersToQuery(among: users)
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
    }
}
