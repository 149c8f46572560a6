import Foundation
import ParleyCore
import ParleyCrypto
import ParleyMatrixCrypto
import ParleyTesting
import Testing
@testable import ParleyMatrix

/// An encrypted message that arrives before its room key is held, and handled once the key
/// comes (a later sync), exactly once. The sender here is a device built from the crypto layer
/// by hand, so the test decides the order: the message first, the key afterwards.
@Suite(.enabled(if: TestSynapse.isConfigured)) struct MatrixHeldEventTests {
    @Test func aMessageWhoseKeyComesLaterIsHeldThenDelivered() async throws {
        try await withTimeout("the held message", seconds: 90) {
            let botUser = try await TestHomeserver.register("bot")
            let carol = try await TestHomeserver.register("carol")
            let carolDevice = try #require(try await carol.client.whoami().deviceID)
            let carolKeys = MatrixDeviceKeys(account: try OlmAccount(), userID: carol.userID, deviceID: carolDevice)
            try await carolKeys.publish(through: carol.client, includeDeviceKeys: true)

            let log = LogLines()
            let bot = try EncryptedTestDevice.transport(botUser, mode: .allow, log: log)
            let inbox = Inbox.start(try await bot.connect())
            let room = try await TestHomeserver.createRoom(carol, inviting: [botUser.userID], extra: [
                "initial_state": [["type": "m.room.encryption", "state_key": "", "content": ["algorithm": "m.megolm.v1.aes-sha2"]]],
            ])
            let invited = MembershipEvent(channel: .group(room), user: botUser.userID, change: .invited, by: carol.userID)
            #expect(await inbox.wait { $0.contains(.membership(invited)) })

            // The message, encrypted with a session whose key the bot does not have yet.
            let session = try MegolmOutboundSession()
            let sessionKey = try session.sessionKey()  // From index 0: taken before the first message.
            let payload: JSONValue = ["type": "m.room.message", "room_id": .string(room),
                                      "content": ["msgtype": "m.text", "body": "sent before its key"]]
            let curve = carolKeys.account.identityKeys.curve25519
            _ = try await carol.client.send(room: room, type: "m.room.encrypted", txnID: UUID().uuidString, content: [
                "algorithm": "m.megolm.v1.aes-sha2", "sender_key": .string(curve), "session_id": .string(session.sessionID),
                "device_id": .string(carolDevice), "ciphertext": .string(try session.encrypt(payload.jsonString())),
            ])
            await log.waitFor("waits for the key of Megolm session \(session.sessionID)")
            #expect(await inbox.texts.isEmpty)
            // The bot asked Carol's device for the key.
            let toDevice = try await carol.client.sync(filterID: nil, since: nil, timeout: .zero)["to_device"]?["events"]?.arrayValue ?? []
            let request = try #require(toDevice.first { $0["type"] == "m.room_key_request" })
            #expect(request["content"]?["action"] == "request")
            #expect(request["content"]?["body"]?["session_id"]?.stringValue == session.sessionID)
            #expect(request["content"]?["body"]?["room_id"]?.stringValue == room)

            // Now the key, over a fresh Olm session from one of the bot's one-time keys.
            let botDevice = try #require(try await MatrixKeyDirectory.query([botUser.userID], through: carol.client).devices.first)
            let claimed = try #require(try await MatrixKeyDirectory.claim([botDevice], through: carol.client).keys.first)
            let olm = try OlmSession(outboundFrom: carolKeys.account, theirIdentityKey: botDevice.curve25519, theirOneTimeKey: claimed.key)
            let roomKey: JSONValue = [
                "type": "m.room_key", "sender": .string(carol.userID), "sender_device": .string(carolDevice),
                "keys": ["ed25519": .string(carolKeys.account.identityKeys.ed25519)],
                "recipient": .string(botUser.userID), "recipient_keys": ["ed25519": .string(botDevice.ed25519)],
                "content": ["algorithm": "m.megolm.v1.aes-sha2", "room_id": .string(room), "session_id": .string(session.sessionID),
                            "session_key": .string(sessionKey)],
            ]
            let message = try olm.encrypt(roomKey.jsonString())
            try await carol.client.sendToDevice(type: "m.room.encrypted", messages: [botUser.userID: [botDevice.deviceID: [
                "algorithm": "m.olm.v1.curve25519-aes-sha2", "sender_key": .string(curve),
                "ciphertext": [.init(stringLiteral: botDevice.curve25519): ["type": .int(Int64(message.kind.rawValue)), "body": .string(message.body)]],
            ]]], txnID: UUID().uuidString)

            #expect(await inbox.waitForText("sent before its key"))
            // Once: a later message in the same session does not bring the held one again.
            func encrypted(_ text: String) throws -> JSONValue {
                let payload: JSONValue = ["type": "m.room.message", "room_id": .string(room), "content": ["msgtype": "m.text", "body": .string(text)]]
                return ["algorithm": "m.megolm.v1.aes-sha2", "sender_key": .string(curve), "session_id": .string(session.sessionID),
                        "device_id": .string(carolDevice), "ciphertext": .string(try session.encrypt(payload.jsonString()))]
            }
            let later = try encrypted("and after")
            _ = try await carol.client.send(room: room, type: "m.room.encrypted", txnID: UUID().uuidString, content: later)
            #expect(await inbox.waitForText("and after"))
            // The same ciphertext again, as a new event: a replay, refused.
            _ = try await carol.client.send(room: room, type: "m.room.encrypted", txnID: UUID().uuidString, content: later)
            _ = try await carol.client.send(room: room, type: "m.room.encrypted", txnID: UUID().uuidString, content: try encrypted("last"))
            #expect(await inbox.waitForText("last"))
            #expect(await inbox.texts == ["sent before its key", "and after", "last"])
            #expect(log.all.contains { $0.contains("a replay") })
            await bot.disconnect()
        }
    }
}
