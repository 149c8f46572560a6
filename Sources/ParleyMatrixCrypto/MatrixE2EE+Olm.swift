import Foundation
import ParleyCore
import ParleyCrypto
import ParleyMatrix

/// Olm: the to-device channel between this device and each other one, which carries room keys.
extension MatrixE2EE {
    static let olmAlgorithm = "m.olm.v1.curve25519-aes-sha2"
    static let megolmAlgorithm = "m.megolm.v1.aes-sha2"

    /// One to-device event: an Olm-encrypted `m.room_key` (or an own device's
    /// `m.forwarded_room_key`) is checked and its session stored; anything else is ignored.
    func handleToDevice(_ event: JSONValue, device: Device) async throws {
        guard event["type"]?.stringValue == "m.room.encrypted", let sender = event["sender"]?.stringValue else { return }
        let content = event["content"] ?? [:]
        guard content["algorithm"]?.stringValue == Self.olmAlgorithm, let senderKey = content["sender_key"]?.stringValue,
              let mine = content["ciphertext"]?[device.account.identityKeys.curve25519],
              let type = mine["type"]?.intValue, let body = mine["body"]?.stringValue,
              let message = OlmMessage(type: Int(type), body: body)
        else { return log("a to-device message from \(sender) is not Olm for this device; ignored") }
        let payload: JSONValue
        do {
            payload = try JSONValue.parse(try await decryptOlm(message, from: senderKey, device: device))
        } catch {
            return log("cannot decrypt a to-device message from \(sender) (\(senderKey)): \(error)")
        }
        // The payload must name this device as recipient and its real sender (Olm spec checks).
        guard payload["sender"]?.stringValue == sender, payload["recipient"]?.stringValue == device.userID,
              payload["recipient_keys"]?["ed25519"]?.stringValue == device.account.identityKeys.ed25519
        else { return log("a to-device message from \(sender) names another sender or recipient; ignored") }
        if payload["type"]?.stringValue == "m.forwarded_room_key" {
            return try await takeForwardedKey(payload["content"] ?? [:], from: sender, device: device)
        }
        guard payload["type"]?.stringValue == "m.room_key" else { return }
        let key = payload["content"] ?? [:]
        guard key["algorithm"]?.stringValue == Self.megolmAlgorithm, let room = key["room_id"]?.stringValue,
              let sessionKey = key["session_key"]?.stringValue
        else { return log("an m.room_key from \(sender) lacks its room, algorithm or key; ignored") }
        let session = try MegolmInboundSession(sessionKey: sessionKey)
        try await store.storeInboundGroupSession(session, roomID: room, senderKey: senderKey, sharedBy: sender)
        inbound[InboundKey(room: room, senderKey: senderKey, sessionID: session.sessionID)] = nil
    }

    /// Decrypts with the sender's known sessions, or (a pre-key message no session matches)
    /// a new inbound session, stored with the account that gave up its one-time key first.
    private func decryptOlm(_ message: OlmMessage, from senderKey: String, device: Device) async throws -> String {
        for session in try await sessions(with: senderKey) {
            if message.kind == .preKey {
                guard try session.matchesInbound(message, theirIdentityKey: senderKey) else { continue }
            }
            guard let plaintext = try? session.decrypt(message) else { continue }
            try await used(session, with: senderKey)
            return plaintext
        }
        guard message.kind == .preKey else {
            throw ParleyError(.invalidContent, "no Olm session with \(senderKey) decrypts it")
        }
        let session = try OlmSession(inboundFrom: device.account, message: message, theirIdentityKey: senderKey)
        try device.account.removeOneTimeKeys(usedBy: session)
        try await store.storeInbound(session: session, theirIdentityKey: senderKey, account: device.account)
        let plaintext = try session.decrypt(message)
        try await used(session, with: senderKey)
        return plaintext
    }

    /// The live sessions with a device, most recently used first.
    func sessions(with curve25519: String) async throws -> [OlmSession] {
        if let known = olmSessions[curve25519] { return known }
        let stored = try await store.olmSessions(theirIdentityKey: curve25519)
        // Another caller may have loaded them while this one waited on the store.
        if let known = olmSessions[curve25519] { return known }
        olmSessions[curve25519] = stored
        return stored
    }

    /// Stores a session whose ratchet moved and makes it the one to encrypt with.
    func used(_ session: OlmSession, with curve25519: String) async throws {
        var list = olmSessions[curve25519] ?? []
        list.removeAll { $0 === session }
        list.insert(session, at: 0)
        olmSessions[curve25519] = list
        try await store.storeSession(session, theirIdentityKey: curve25519)
    }

    /// The Olm-encrypted to-device content carrying `type`/`content` to `target`.
    func olmContent(type: String, content: JSONValue, to target: MatrixDevice, with session: OlmSession,
                    device: Device) async throws -> JSONValue {
        let payload: JSONValue = [
            "type": .string(type), "content": content,
            "sender": .string(device.userID), "sender_device": .string(device.deviceID),
            "keys": ["ed25519": .string(device.account.identityKeys.ed25519)],
            "recipient": .string(target.userID), "recipient_keys": ["ed25519": .string(target.ed25519)],
        ]
        let message = try session.encrypt(payload.jsonString())
        // Stored before the message leaves: a restart must not encrypt again at the same step.
        try await used(session, with: target.curve25519)
        return [
            "algorithm": .string(Self.olmAlgorithm),
            "sender_key": .string(device.account.identityKeys.curve25519),
            "ciphertext": .object([target.curve25519: ["type": .int(Int64(message.kind.rawValue)), "body": .string(message.body)]]),
        ]
    }
}
