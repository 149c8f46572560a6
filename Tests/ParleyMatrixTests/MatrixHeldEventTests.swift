import Foundation
import ParleyCore
import ParleyCrypto
import ParleyMatrixCrypto
import ParleyTesting
import Testing
@testable import ParleyMatrix

/// An encrypted message that arrives before its room key is held, and handled once the key
/// comes (a later sync), exactly once — also when the bot restarts in between. The sender here
/// is a device built from the crypto layer by hand, so the test decides the order: the message
/// first, the key afterwards.
@Suite(.enabled(if: TestSynapse.isConfigured)) struct MatrixHeldEventTests {
    /// Carol with a device made by hand: she sends Megolm messages and, when told, their key.
    struct HandmadeSender {
        let user: TestHomeserver.User
        let deviceID: String
        let keys: MatrixDeviceKeys
        let session: MegolmOutboundSession
        /// From index 0: taken before the first message.
        let sessionKey: String

        init() async throws {
            user = try await TestHomeserver.register("carol")
            deviceID = try #require(try await user.client.whoami().deviceID)
            keys = MatrixDeviceKeys(account: try OlmAccount(), userID: user.userID, deviceID: deviceID)
            try await keys.publish(through: user.client, includeDeviceKeys: true)
            session = try MegolmOutboundSession()
            sessionKey = try session.sessionKey()
        }

        /// An encrypted room of Carol's with `bot` invited.
        func room(inviting bot: String) async throws -> String {
            try await TestHomeserver.createRoom(user, inviting: [bot], extra: [
                "initial_state": [["type": "m.room.encryption", "state_key": "", "content": ["algorithm": "m.megolm.v1.aes-sha2"]]],
            ])
        }

        /// The next message of the session, as `m.room.encrypted` content.
        func encrypted(_ text: String, room: String) throws -> JSONValue {
            let payload: JSONValue = ["type": "m.room.message", "room_id": .string(room), "content": ["msgtype": "m.text", "body": .string(text)]]
            return ["algorithm": "m.megolm.v1.aes-sha2", "sender_key": .string(keys.account.identityKeys.curve25519),
                    "session_id": .string(session.sessionID), "device_id": .string(deviceID),
                    "ciphertext": .string(try session.encrypt(payload.jsonString()))]
        }

        func send(_ content: JSONValue, room: String) async throws {
            _ = try await user.client.send(room: room, type: "m.room.encrypted", txnID: UUID().uuidString, content: content)
        }

        /// The session's key to the bot's device, over a fresh Olm session from one of its one-time keys.
        func sendKey(to bot: String, room: String) async throws {
            let botDevice = try #require(try await MatrixKeyDirectory.query([bot], through: user.client).devices.first)
            let claimed = try #require(try await MatrixKeyDirectory.claim([botDevice], through: user.client).keys.first)
            let olm = try OlmSession(outboundFrom: keys.account, theirIdentityKey: botDevice.curve25519, theirOneTimeKey: claimed.key)
            let roomKey: JSONValue = [
                "type": "m.room_key", "sender": .string(user.userID), "sender_device": .string(deviceID),
                "keys": ["ed25519": .string(keys.account.identityKeys.ed25519)],
                "recipient": .string(bot), "recipient_keys": ["ed25519": .string(botDevice.ed25519)],
                "content": ["algorithm": "m.megolm.v1.aes-sha2", "room_id": .string(room), "session_id": .string(session.sessionID),
                            "session_key": .string(sessionKey)],
            ]
            let message = try olm.encrypt(roomKey.jsonString())
            try await user.client.sendToDevice(type: "m.room.encrypted", messages: [bot: [botDevice.deviceID: [
                "algorithm": "m.olm.v1.curve25519-aes-sha2", "sender_key": .string(keys.account.identityKeys.curve25519),
                "ciphertext": [.init(stringLiteral: botDevice.curve25519): ["type": .int(Int64(message.kind.rawValue)), "body": .string(message.body)]],
            ]]], txnID: UUID().uuidString)
        }
    }

    @Test func aMessageWhoseKeyComesLaterIsHeldThenDelivered() async throws {
        try await withTimeout("the held message", seconds: 180) {
            let botUser = try await TestHomeserver.register("bot")
            let carol = try await HandmadeSender()
            let log = LogLines()
            let bot = try EncryptedTestDevice.transport(botUser, mode: .allow, log: log)
            let inbox = Inbox.start(try await bot.connect())
            let room = try await carol.room(inviting: botUser.userID)
            let invited = MembershipEvent(channel: .group(room), user: botUser.userID, change: .invited, by: carol.user.userID)
            #expect(await inbox.wait { $0.contains(.membership(invited)) })

            // The message, encrypted with a session whose key the bot does not have yet.
            try await carol.send(try carol.encrypted("sent before its key", room: room), room: room)
            #expect(await log.waitFor("waits for the key of Megolm session \(carol.session.sessionID)"))
            #expect(await inbox.texts.isEmpty)
            // The bot asked Carol's device for the key.
            let toDevice = try await carol.user.client.sync(filterID: nil, since: nil, timeout: .zero)["to_device"]?["events"]?.arrayValue ?? []
            let request = try #require(toDevice.first { $0["type"] == "m.room_key_request" })
            #expect(request["content"]?["action"] == "request")
            #expect(request["content"]?["body"]?["session_id"]?.stringValue == carol.session.sessionID)
            #expect(request["content"]?["body"]?["room_id"]?.stringValue == room)

            try await carol.sendKey(to: botUser.userID, room: room)
            #expect(await inbox.waitForText("sent before its key"))
            // Once: a later message in the same session does not bring the held one again.
            let later = try carol.encrypted("and after", room: room)
            try await carol.send(later, room: room)
            #expect(await inbox.waitForText("and after"))
            // The same ciphertext again, as a new event: a replay, refused.
            try await carol.send(later, room: room)
            try await carol.send(try carol.encrypted("last", room: room), room: room)
            #expect(await inbox.waitForText("last"))
            #expect(await inbox.texts == ["sent before its key", "and after", "last"])
            #expect(log.all.contains { $0.contains("a replay") })
            await bot.disconnect()
        }
    }

    /// The held event is in the store with the sync position that delivered it: after a
    /// restart (a new transport on the same files) the key still opens it, once.
    @Test func aHeldMessageSurvivesARestart() async throws {
        try await withTimeout("the held message across a restart", seconds: 180) {
            let botUser = try await TestHomeserver.register("bot")
            let carol = try await HandmadeSender()
            let database = TestHomeserver.freshDatabasePath()
            let log = LogLines()
            var bot = try EncryptedTestDevice.transport(botUser, mode: .allow, log: log, databasePath: database)
            var inbox = Inbox.start(try await bot.connect())
            let room = try await carol.room(inviting: botUser.userID)
            let invited = MembershipEvent(channel: .group(room), user: botUser.userID, change: .invited, by: carol.user.userID)
            #expect(await inbox.wait { $0.contains(.membership(invited)) })
            try await carol.send(try carol.encrypted("held across a restart", room: room), room: room)
            #expect(await log.waitFor("waits for the key of Megolm session \(carol.session.sessionID)"))
            // An event of a later sync reaches the consumer only after that sync's commit, so
            // the position past the held message is saved when this arrives.
            let dave = try await TestHomeserver.register("dave")
            try await carol.user.client.invite(room: room, user: dave.userID)
            let daveInvited = MembershipEvent(channel: .group(room), user: dave.userID, change: .invited, by: carol.user.userID)
            #expect(await inbox.wait { $0.contains(.membership(daveInvited)) })
            await bot.disconnect()

            bot = try EncryptedTestDevice.transport(botUser, mode: .allow, log: log, databasePath: database)
            inbox = Inbox.start(try await bot.connect())
            try await carol.sendKey(to: botUser.userID, room: room)
            #expect(await inbox.waitForText("held across a restart"), "\(log.all)")
            try await carol.send(try carol.encrypted("and after the restart", room: room), room: room)
            #expect(await inbox.waitForText("and after the restart"))
            #expect(await inbox.texts == ["held across a restart", "and after the restart"])
            await bot.disconnect()
        }
    }
}
