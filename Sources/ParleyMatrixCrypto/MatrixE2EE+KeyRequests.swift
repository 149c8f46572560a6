import Foundation
import ParleyCore
import ParleyCrypto
import ParleyMatrix

/// Key requests between the bot's own devices. Another device of the bot's account (a second
/// process, a new login) that lacks a room key asks for it (`m.room_key_request`); this device
/// forwards the session (`m.forwarded_room_key`, over Olm) only if that device is signed by the
/// account's self-signing key, which only a holder of the cross-signing keys can do. Requests
/// from other users, and from own devices not so signed (a homeserver admin can add a device
/// to the bot's account, not sign it), are refused and logged. The receiving side takes a
/// forwarded key only from its own account, and only for a session it asked for.
extension MatrixE2EE {
    /// Answers being worked on at once; more requests meanwhile are dropped (logged): a device
    /// asks again for what it still lacks.
    static let keyAnswerLimit = 16

    /// A plain `m.room_key_request` of the sync: checked and answered off the sync's path.
    func handleKeyRequest(_ event: JSONValue, device: Device, client: MatrixClient) {
        let content = event["content"] ?? [:]
        guard content["action"]?.stringValue == "request", let sender = event["sender"]?.stringValue,
              let requesting = content["requesting_device_id"]?.stringValue, requesting != device.deviceID,
              let body = content["body"], body["algorithm"]?.stringValue == Self.megolmAlgorithm,
              let room = body["room_id"]?.stringValue, let senderKey = body["sender_key"]?.stringValue,
              let sessionID = body["session_id"]?.stringValue
        else { return }
        guard sender == device.userID else {
            return log("refused \(sender)'s request for the key of session \(sessionID): keys go to the bot's own devices only")
        }
        guard keyAnswers < Self.keyAnswerLimit else {
            return log("dropped device \(requesting)'s request for the key of session \(sessionID): \(keyAnswers) answers in progress")
        }
        keyAnswers += 1
        let key = InboundKey(room: room, senderKey: senderKey, sessionID: sessionID)
        Task {
            do {
                try await self.forward(key, to: requesting, device: device, client: client)
            } catch {
                self.log("answering device \(requesting)'s request for the key of session \(sessionID) failed: \(error)")
            }
            self.keyAnswerEnded()
        }
    }

    private func keyAnswerEnded() { keyAnswers -= 1 }

    /// Sends the session of `key` to own device `deviceID` if it is cross-signed and the
    /// session is known here.
    private func forward(_ key: InboundKey, to deviceID: String, device: Device, client: MatrixClient) async throws {
        guard let target = try await signedOwnDevice(deviceID, device: device, client: client) else { return }
        guard let stored = try await store.inboundGroupSession(roomID: key.room, senderKey: key.senderKey, sessionID: key.sessionID) else {
            return log("device \(deviceID) asked for the key of session \(key.sessionID), which this device does not hold")
        }
        guard let claimed = try await claimedSigningKey(of: key.senderKey, sharedBy: stored.sharedBy, device: device, client: client) else {
            return log("device \(deviceID) asked for the key of session \(key.sessionID), whose sender's signing key is unknown here")
        }
        let session = stored.session
        let forwarded: JSONValue = [
            "algorithm": .string(Self.megolmAlgorithm), "room_id": .string(key.room), "sender_key": .string(key.senderKey),
            "session_id": .string(key.sessionID), "session_key": .string(try session.export(at: session.firstKnownIndex)),
            "sender_claimed_ed25519_key": .string(claimed), "forwarding_curve25519_key_chain": [],
        ]
        guard let olm = try await olmSessions(for: [target], device: device, client: client)[target.curve25519] else { return }
        let message = try await olmContent(type: "m.forwarded_room_key", content: forwarded, to: target, with: olm, device: device)
        try await client.sendToDevice(type: "m.room.encrypted", messages: [device.userID: [deviceID: message]], txnID: UUID().uuidString)
        log("forwarded the key of session \(key.sessionID) to own device \(deviceID)")
    }

    /// Own device `deviceID` as the server lists it now, if its self-signature holds and the
    /// account's self-signing key (held here) signed it; else nil, logged.
    private func signedOwnDevice(_ deviceID: String, device: Device, client: MatrixClient) async throws -> MatrixDevice? {
        guard let keys = try await store.crossSigningKeys() else {
            log("cannot tell whether device \(deviceID) is the bot's own: this device holds no cross-signing keys")
            return nil
        }
        guard let (target, object) = try await ownDevice(deviceID, of: device, client: client),
              MatrixSigning.verify(object, userID: device.userID, keyName: keys.selfSigning.publicKey, ed25519Key: keys.selfSigning.publicKey)
        else {
            log("refused device \(deviceID)'s key request: it is not signed by the account's self-signing key")
            return nil
        }
        return target
    }

    /// The ed25519 key of the device whose identity key is `senderKey`: this device's own, or
    /// a device of the user who shared the session (queried when not tracked yet).
    private func claimedSigningKey(of senderKey: String, sharedBy user: String, device: Device,
                                   client: MatrixClient) async throws -> String? {
        if senderKey == device.account.identityKeys.curve25519 { return device.account.identityKeys.ed25519 }
        return try await devices(of: [user], client: client).first { $0.curve25519 == senderKey }?.ed25519
    }

    /// An Olm-decrypted `m.forwarded_room_key`: stored if it comes from this account (another
    /// of its devices) for a session this device asked for.
    func takeForwardedKey(_ content: JSONValue, from sender: String, device: Device) async throws {
        guard let room = content["room_id"]?.stringValue, let senderKey = content["sender_key"]?.stringValue,
              let sessionID = content["session_id"]?.stringValue, let exported = content["session_key"]?.stringValue,
              content["algorithm"]?.stringValue == Self.megolmAlgorithm
        else { return log("an m.forwarded_room_key from \(sender) lacks its room, session or key; ignored") }
        let key = InboundKey(room: room, senderKey: senderKey, sessionID: sessionID)
        guard sender == device.userID, requestedKeys.contains(key) else {
            return log("refused a forwarded key for session \(sessionID) from \(sender): not asked for, or not from the bot's own account")
        }
        let session = try MegolmInboundSession(importing: exported)
        guard session.sessionID == sessionID else { return log("a forwarded key from \(sender) is not of session \(sessionID); ignored") }
        try await store.storeInboundGroupSession(session, roomID: room, senderKey: senderKey, sharedBy: sender)
        inbound[key] = nil
        log("took the forwarded key of session \(sessionID)")
    }
}
