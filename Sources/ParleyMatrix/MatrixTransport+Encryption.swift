import Foundation
import ParleyCore

/// An encrypted event held until its room key arrives.
struct HeldEvent: Sendable {
    let room: String
    let id: String
    let event: JSONValue
    let heldAt: Date
}

/// End-to-end encrypted rooms, by `encryptionMode`:
/// - `off`: encrypted rooms are refused (nothing delivered, sends fail with `permissionDenied`).
/// - `allow`, `default`: encrypted rooms are served through `configuration.encryption`;
///   `default` also creates direct rooms encrypted.
/// - `require`: plain rooms are refused as `off` refuses encrypted ones.
///
/// An event whose room key has not arrived is held (at most `heldEventLimit.count`, for
/// `heldEventLimit.age`; in memory and in the store, written with the sync position that
/// delivered it, so a restart goes on waiting) and handled when a later sync brings the key;
/// one that never gets it is logged and skipped.
extension MatrixTransport {
    /// Publishes the device's keys once the session (and so the device id) is known.
    func startEncryption() async throws {
        guard config.encryptionMode.servesEncrypted else { return }
        guard let encryption = config.encryption else {
            throw ParleyError(.invalidArgument, "transport.encryption.mode \(config.encryptionMode.rawValue) needs the device's crypto store",
                              context: ["user": userID])
        }
        guard let deviceID else {
            throw ParleyError(.unauthorized, "the homeserver did not say which device \(userID)'s access token belongs to; "
                              + "end-to-end encryption needs a device (log in with a password instead)", context: ["user": userID])
        }
        var password: String?
        if case .password(let secret) = config.credentials { password = secret }
        try await encryption.start(client: client, userID: userID, deviceID: deviceID, password: password)
        // What waited for keys when the last run ended waits on; its keys are asked for again.
        let stored = try await store.heldEvents()
        for held in stored where !heldEvents.contains(where: { $0.id == held.id }) { heldEvents.append(held) }
        for held in stored { await encryption.requestKey(for: held.event, room: held.room, client: client) }
    }

    /// Notes that `room` is encrypted, with its `m.room.encryption` content when known.
    func markEncrypted(_ room: String, settings: JSONValue?) {
        rooms.encrypted[room] = true
        if let settings { rooms.encryptionSettings[room] = settings }
        if !config.encryptionMode.servesEncrypted { warnEncrypted(room) }
    }

    /// Whether the room is encrypted, asked of the server once per room, then followed from sync.
    func isEncrypted(_ room: String) async throws -> Bool {
        if let known = rooms.encrypted[room] { return known }
        let settings = try await client.state(room: room, type: "m.room.encryption")
        rooms.encrypted[room] = settings != nil
        if let settings { rooms.encryptionSettings[room] = settings }
        return settings != nil
    }

    /// Whether this mode serves the room (an unknown room is asked about only under `require`).
    func serves(_ room: String) async throws -> Bool {
        switch config.encryptionMode {
        case .off: return rooms.encrypted[room] != true
        case .allow, .default: return true
        case .require:
            guard try await isEncrypted(room) else {
                warnPlain(room)
                return false
            }
            return true
        }
    }

    private func warnPlain(_ room: String) {
        guard rooms.warned.insert(room).inserted else { return }
        config.log("room \(room) is not encrypted and transport.encryption.mode is require: Parley ignores its messages and refuses to send there")
    }

    /// The decrypted event, or nil when it was held (key not here yet) or skipped (undecryptable).
    func decryptOrHold(_ event: JSONValue, id: String, room: String) async -> JSONValue? {
        guard let encryption = config.encryption else { return nil }
        switch await encryption.decrypt(event, room: room) {
        case .decrypted(let decrypted):
            return decrypted
        case .missingKey(let session):
            hold(HeldEvent(room: room, id: id, event: event, heldAt: config.clock.now()), session: session)
            await encryption.requestKey(for: event, room: room, client: client)
        case .failed(let why):
            config.log("cannot decrypt event \(id) in \(room): \(why); skipped")
            markHandled([id], room: room)
        }
        return nil
    }

    private func hold(_ held: HeldEvent, session: String) {
        // Written again when already held: the sync that held it first may have failed.
        syncBatch.writes.hold(held)
        guard !heldEvents.contains(where: { $0.id == held.id }) else { return }
        config.log("event \(held.id) in \(held.room) waits for the key of Megolm session \(session)")
        heldEvents.append(held)
        if heldEvents.count > config.heldEventLimit.count {
            giveUp(heldEvents.removeFirst(), because: "more than \(config.heldEventLimit.count) events wait for keys")
        }
    }

    private func giveUp(_ held: HeldEvent, because reason: String) {
        config.log("event \(held.id) in \(held.room) is skipped: its room key never arrived (\(reason))")
        markHandled([held.id], room: held.room)
        syncBatch.writes.release(held.id)
    }

    /// The sync answer's to-device messages, key counts and device lists, then the held
    /// events the keys it brought open (and those held too long given up).
    func handleEncryption(of response: JSONValue) async throws {
        guard config.encryptionMode.servesEncrypted, let encryption = config.encryption else { return }
        try await encryption.handleSync(response, client: client)
        guard !heldEvents.isEmpty else { return }
        let held = heldEvents
        heldEvents = []
        let now = config.clock.now()
        for event in held {
            if now.timeIntervalSince(event.heldAt) > config.heldEventLimit.age.timeInterval {
                giveUp(event, because: "held for \(config.heldEventLimit.age)")
                continue
            }
            switch await encryption.decrypt(event.event, room: event.room) {
            case .decrypted(let decrypted):
                syncBatch.writes.release(event.id)
                guard let sender = event.event["sender"]?.stringValue else { continue }
                try await handleDecrypted(decrypted, id: event.id, sender: sender, room: event.room)
            case .missingKey:
                heldEvents.append(event)
            case .failed(let why):
                config.log("cannot decrypt event \(event.id) in \(event.room): \(why); skipped")
                markHandled([event.id], room: event.room)
                syncBatch.writes.release(event.id)
            }
        }
    }

    /// A member joined or left: the member list is read again before the next key share, and a
    /// departure retires the room's session (the leaver must not read what follows).
    func membershipChanged(room: String, membership: String) async {
        rooms.members[room] = nil
        guard rooms.encrypted[room] == true, membership == "leave" || membership == "ban",
              let encryption = config.encryption else { return }
        await encryption.membersLeft(room: room)
    }

    /// Refuses a send into a room the mode does not serve; returns whether the room is encrypted.
    func refuseUnserved(_ room: String) async throws -> Bool {
        let encrypted = try await isEncrypted(room)
        if !encrypted, config.encryptionMode == .require {
            warnPlain(room)
            throw ParleyError(.permissionDenied, "room \(room) is not encrypted and transport.encryption.mode is require",
                              context: ["room": room, "reason": "plain"])
        }
        if encrypted, !config.encryptionMode.servesEncrypted || config.encryption == nil {
            warnEncrypted(room)
            throw ParleyError(.permissionDenied, "room \(room) is end-to-end encrypted and transport.encryption.mode is off",
                              context: ["room": room, "reason": "encrypted"])
        }
        return encrypted
    }

    /// What to send into `room` for an event `type` with `content`: as is in a plain room,
    /// encrypted in an encrypted one; refused where the mode does not serve the room.
    func sealed(_ content: JSONValue, type: String, room: String) async throws -> (type: String, content: JSONValue) {
        guard try await refuseUnserved(room), let encryption = config.encryption else { return (type, content) }
        let members = try await members(of: room)
        let sealed = try await encryption.encrypt(type: type, content: content, room: room, members: members,
                                                  settings: rooms.encryptionSettings[room] ?? [:], client: client)
        return ("m.room.encrypted", sealed)
    }

    /// Before a batch goes out: the rooms of its channels (direct rooms created when missing,
    /// each in its channel's queue) and, for the encrypted ones, their keys shared in one pass
    /// (see `MatrixEncryption.share(rooms:client:)`). Best effort: what fails here is done, or
    /// fails clearly, by each send.
    func shareRoomKeys(for channels: [Channel]) async {
        guard config.encryptionMode.servesEncrypted, let encryption = config.encryption, !channels.isEmpty else { return }
        var shares: [MatrixRoomKeyShare] = []
        await withTaskGroup(of: MatrixRoomKeyShare?.self) { group in
            var next = 0
            func startNext() {
                guard next < channels.count else { return }
                let channel = channels[next]
                next += 1
                group.addTask {
                    do { return try await self.queues.run(channel.target) { try await self.roomKeyShare(for: channel) } } catch {
                        self.config.log("preparing the room of \(channel.target) for its key failed (its send tries again): \(error)")
                        return nil
                    }
                }
            }
            for _ in 0..<min(concurrentSends, channels.count) { startNext() }
            while let share = await group.next() {
                if let share { shares.append(share) }
                startNext()
            }
        }
        guard !shares.isEmpty else { return }
        do {
            try await encryption.share(rooms: shares, client: client)
        } catch {
            config.log("sharing the room keys of \(shares.count) rooms at once failed (each send shares its own): \(error)")
        }
    }

    /// The channel's room with what sharing its key needs, or nil for a plain room.
    private func roomKeyShare(for channel: Channel) async throws -> MatrixRoomKeyShare? {
        let room = try await roomID(for: channel, create: true)
        guard try await isEncrypted(room) else { return nil }
        return MatrixRoomKeyShare(room: room, members: try await members(of: room), settings: rooms.encryptionSettings[room] ?? [:])
    }

    private func members(of room: String) async throws -> [String] {
        if let known = rooms.members[room] { return known }
        let members = try await client.joinedAndInvitedMembers(room: room)
        rooms.members[room] = members
        return members
    }

    /// The initial state of a direct room this account creates: encrypted under `default`
    /// and `require`.
    var directRoomInitialState: [JSONValue] {
        guard config.encryptionMode == .default || config.encryptionMode == .require else { return [] }
        return [["type": "m.room.encryption", "state_key": "", "content": ["algorithm": "m.megolm.v1.aes-sha2"]]]
    }
}
