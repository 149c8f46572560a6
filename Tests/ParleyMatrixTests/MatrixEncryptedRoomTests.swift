import Foundation
import ParleyCore
import ParleyCrypto
import ParleyMatrixCrypto
import ParleyTesting
import Testing
@testable import ParleyMatrix

/// Encrypted rooms between two Parley transports on Synapse: each side decrypts what the
/// other encrypted, and the server only ever sees `m.room.encrypted`.
@Suite(.enabled(if: TestSynapse.isConfigured)) struct MatrixEncryptedRoomTests {
    static func text(_ text: String, to channel: Channel) -> OutgoingEnvelope {
        OutgoingEnvelope(channel: channel, payload: ["type": 1, "text": .string(text)])
    }

    @Test func anEncryptedDirectRoomCarriesMessagesAndReactionsBothWays() async throws {
        try await withTimeout("the encrypted conversation", seconds: 180) {
            let botUser = try await TestHomeserver.register("bot")
            let aliceUser = try await TestHomeserver.register("alice")
            let bot = try EncryptedTestDevice.transport(botUser, mode: .allow)
            let alice = try EncryptedTestDevice.transport(aliceUser, mode: .default)
            let botInbox = Inbox.start(try await bot.connect())
            let aliceInbox = Inbox.start(try await alice.connect())

            // Alice's first send creates the direct room encrypted (mode default) and invites the
            // bot: the room key goes to the invited bot too, so it reads the message once it joins.
            _ = try await alice.send(Self.text("hello, encrypted", to: .person(botUser.userID)))
            #expect(await botInbox.waitForText("hello, encrypted"))
            let room = try await alice.roomID(for: .person(botUser.userID))
            #expect(try await aliceUser.client.state(room: room, type: "m.room.encryption")?["algorithm"] == "m.megolm.v1.aes-sha2")

            let question = try #require(await botInbox.messages.first)
            _ = try await bot.send(Self.text("hi back", to: .person(aliceUser.userID)))
            try await bot.setReaction("👍", on: question.id, in: .person(aliceUser.userID), added: true)
            #expect(await aliceInbox.waitForText("hi back"))
            #expect(await aliceInbox.wait { events in
                events.contains { if case .reaction(let reaction) = $0 { return reaction.emoji == "👍" && reaction.messageID == question.id }; return false }
            })

            // The server holds no message or reaction in clear; the reaction's relation is
            // readable (as Element sends it) so the server can aggregate it.
            let raw = try await EncryptedTestDevice.rawEvents(aliceUser, room: room)
            let types = raw.compactMap { $0["type"]?.stringValue }
            #expect(!types.contains("m.room.message") && !types.contains("m.reaction"))
            #expect(types.filter { $0 == "m.room.encrypted" }.count == 3)
            #expect(!raw.contains { $0.jsonString().contains("hello, encrypted") || $0.jsonString().contains("hi back") })
            let reaction = try #require(raw.first { $0["content"]?["m.relates_to"]?["rel_type"] == "m.annotation" })
            #expect(reaction["content"]?["m.relates_to"]?["event_id"]?.stringValue == question.id)
            await bot.disconnect()
            await alice.disconnect()
        }
    }

    @Test func aMemberLeavingRetiresTheRoomSession() async throws {
        try await withTimeout("the rotation", seconds: 180) {
            let botUser = try await TestHomeserver.register("bot")
            let aliceUser = try await TestHomeserver.register("alice")
            let carol = try await TestHomeserver.register("carol")
            let bot = try EncryptedTestDevice.transport(botUser, mode: .default)
            let alice = try EncryptedTestDevice.transport(aliceUser, mode: .allow)
            let botInbox = Inbox.start(try await bot.connect())
            let aliceInbox = Inbox.start(try await alice.connect())

            _ = try await bot.send(Self.text("one", to: .person(aliceUser.userID)))
            let room = try await bot.roomID(for: .person(aliceUser.userID))
            try await aliceUser.client.join(room)
            #expect(await aliceInbox.waitForText("one"))
            _ = try await bot.send(Self.text("two", to: .person(aliceUser.userID)))
            #expect(await aliceInbox.waitForText("two"))

            try await botUser.client.invite(room: room, user: carol.userID)
            try await carol.client.join(room)
            try await carol.client.leave(room: room)
            let left = MembershipEvent(channel: .person(aliceUser.userID), user: carol.userID, change: .left)
            #expect(await botInbox.wait { $0.contains(.membership(left)) })
            _ = try await bot.send(Self.text("three", to: .person(aliceUser.userID)))
            #expect(await aliceInbox.waitForText("three"))

            // Newest first: three, then two and one (the same session), and the key reached Alice.
            let sessions = try await EncryptedTestDevice.rawEvents(aliceUser, room: room)
                .filter { $0["sender"]?.stringValue == botUser.userID && $0["type"] == "m.room.encrypted" }
                .compactMap { $0["content"]?["session_id"]?.stringValue }
            #expect(sessions.count == 3)
            #expect(sessions[1] == sessions[2])
            #expect(sessions[0] != sessions[1])
            await bot.disconnect()
            await alice.disconnect()
        }
    }

    @Test func theRoomsRotationSettingsStartANewSession() async throws {
        try await withTimeout("rotation by count", seconds: 180) {
            let botUser = try await TestHomeserver.register("bot")
            let aliceUser = try await TestHomeserver.register("alice")
            let room = try await TestHomeserver.createRoom(aliceUser, inviting: [botUser.userID], extra: [
                "initial_state": [["type": "m.room.encryption", "state_key": "",
                                   "content": ["algorithm": "m.megolm.v1.aes-sha2", "rotation_period_msgs": 2]]],
            ])
            let bot = try EncryptedTestDevice.transport(botUser, mode: .allow)
            let inbox = Inbox.start(try await bot.connect())
            let invited = MembershipEvent(channel: .group(room), user: botUser.userID, change: .invited, by: aliceUser.userID)
            #expect(await inbox.wait { $0.contains(.membership(invited)) })
            for text in ["1", "2", "3"] { _ = try await bot.send(Self.text(text, to: .group(room))) }
            let sessions = try await EncryptedTestDevice.rawEvents(aliceUser, room: room)
                .filter { $0["sender"]?.stringValue == botUser.userID && $0["type"] == "m.room.encrypted" }
                .compactMap { $0["content"]?["session_id"]?.stringValue }
            // Newest first: the third message starts a new session; the first two share one.
            #expect(sessions.count == 3 && sessions[1] == sessions[2] && sessions[0] != sessions[1])
            await bot.disconnect()
        }
    }

    @Test func aPlainRoomIsRefusedUnderRequireAndAnEncryptedOneUnderOff() async throws {
        try await withTimeout("the refusals", seconds: 180) {
            let botUser = try await TestHomeserver.register("bot")
            let aliceUser = try await TestHomeserver.register("alice")
            let plain = try await TestHomeserver.createRoom(aliceUser, inviting: [botUser.userID])
            let encrypted = try await TestHomeserver.createRoom(aliceUser, inviting: [botUser.userID], extra: [
                "initial_state": [["type": "m.room.encryption", "state_key": "", "content": ["algorithm": "m.megolm.v1.aes-sha2"]]],
            ])
            let strict = try EncryptedTestDevice.transport(botUser, mode: .require)
            let inbox = Inbox.start(try await strict.connect())
            try await TestHomeserver.say(aliceUser, "in clear", in: plain)
            await #expect(throws: ParleyError.self) { try await strict.send(Self.text("no", to: .group(plain))) }
            _ = try await strict.send(Self.text("yes", to: .group(encrypted)))
            #expect(await inbox.texts.isEmpty)
            await strict.disconnect()

            let off = try TestHomeserver.transport(botUser)
            let error = await #expect(throws: ParleyError.self) { try await off.send(Self.text("no", to: .group(encrypted))) }
            #expect(error?.code == .permissionDenied)
            _ = try await off.send(Self.text("fine", to: .group(plain)))
        }
    }
}

/// A restart over the same databases goes on in the same encrypted room: the stored account,
/// Olm sessions and the room's Megolm session (at its next index) are used, not new ones.
@Suite(.enabled(if: TestSynapse.isConfigured)) struct MatrixEncryptedRestartTests {
    @Test func aRestartedBotGoesOnInTheSameEncryptedRoom() async throws {
        try await withTimeout("the restart", seconds: 180) {
            let botUser = try await TestHomeserver.register("bot")
            let aliceUser = try await TestHomeserver.register("alice")
            let database = TestHomeserver.freshDatabasePath()
            let alice = try EncryptedTestDevice.transport(aliceUser, mode: .allow)
            let aliceInbox = Inbox.start(try await alice.connect())
            var bot = try EncryptedTestDevice.transport(botUser, mode: .default, databasePath: database)
            _ = try await bot.connect()
            _ = try await bot.send(MatrixEncryptedRoomTests.text("before", to: .person(aliceUser.userID)))
            let room = try await bot.roomID(for: .person(aliceUser.userID))
            try await aliceUser.client.join(room)
            #expect(await aliceInbox.waitForText("before"))
            await bot.disconnect()

            bot = try EncryptedTestDevice.transport(botUser, mode: .default, databasePath: database)
            let botInbox = Inbox.start(try await bot.connect())
            _ = try await bot.send(MatrixEncryptedRoomTests.text("after", to: .person(aliceUser.userID)))
            #expect(await aliceInbox.waitForText("after"))
            _ = try await alice.send(MatrixEncryptedRoomTests.text("still there?", to: .group(room)))
            #expect(await botInbox.waitForText("still there?"))

            let sessions = try await EncryptedTestDevice.rawEvents(aliceUser, room: room)
                .filter { $0["sender"]?.stringValue == botUser.userID && $0["type"] == "m.room.encrypted" }
                .compactMap { $0["content"]?["session_id"]?.stringValue }
            #expect(sessions.count == 2 && Set(sessions).count == 1)
            await bot.disconnect()
            await alice.disconnect()
        }
    }
}
