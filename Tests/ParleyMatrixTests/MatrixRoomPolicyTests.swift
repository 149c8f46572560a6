import Foundation
import ParleyCore
import ParleyTesting
import Testing
@testable import ParleyMatrix

/// Rate limits, encrypted rooms, kicks, profiles and members against the real Synapse.
@Suite(.enabled(if: TestSynapse.isConfigured)) struct MatrixRoomPolicyTests {
    @Test func synapseDefaultRateLimitMapsToRateLimited() async throws {
        let botUser = try await TestHomeserver.register("bot", liftRateLimit: false)
        let alice = try await TestHomeserver.register("alice")
        let room = try await TestHomeserver.createRoom(alice, inviting: [botUser.userID])
        let bot = try TestHomeserver.transport(botUser)
        _ = try await bot.connect()
        // Synapse's default: 0.2 messages/s with a burst of 10 (more get through when the
        // server is slow under parallel tests). Bounded: 40 tries at most.
        var limited: ParleyError?
        var sent = 0
        for index in 0..<40 {
            do {
                _ = try await bot.send(OutgoingEnvelope(channel: .group(room), payload: ["type": 1, "text": .string("n\(index)")]))
                sent += 1
            } catch let error as ParleyError {
                limited = error
                break
            }
        }
        let error = try #require(limited)
        #expect(error.code == .rateLimited)
        #expect(error.context["errcode"] == "M_LIMIT_EXCEEDED")
        let wait = try #require(error.retryAfter)
        #expect(wait > .zero && wait <= .seconds(10))
        #expect(sent >= 1)
        await bot.disconnect()
    }

    @Test func encryptedRoomIsRefusedAndSilent() async throws {
        let lines = LogLines()
        let botUser = try await TestHomeserver.register("bot")
        let alice = try await TestHomeserver.register("alice")
        let plain = try await TestHomeserver.createRoom(alice, inviting: [botUser.userID])
        let encrypted = try await TestHomeserver.createRoom(alice, inviting: [botUser.userID], extra: [
            "initial_state": [["type": "m.room.encryption", "state_key": "", "content": ["algorithm": "m.megolm.v1.aes-sha2"]]],
        ])
        // connect() answers the invites before it returns: the bot is in both rooms.
        let bot = try TestHomeserver.transport(botUser) { $0.log = lines.append }
        let inbox = Inbox.start(try await bot.connect())
        _ = try await alice.client.send(room: encrypted, type: "m.room.encrypted", txnID: UUID().uuidString, content: [
            "algorithm": "m.megolm.v1.aes-sha2", "ciphertext": "AwgAEnAcBw", "sender_key": "k", "session_id": "s", "device_id": "D",
        ])
        try await TestHomeserver.say(alice, "plaintext in an encrypted room", in: encrypted)
        for _ in 0..<2 {
            await #expect {
                _ = try await bot.send(OutgoingEnvelope(channel: .group(encrypted), payload: ["type": 1, "text": "secret"]))
            } throws: { error in
                let error = error as? ParleyError
                return error?.code == .permissionDenied && error?.context["reason"] == "encrypted"
            }
        }
        try await TestHomeserver.say(alice, "marker", in: plain)
        #expect(await inbox.waitForText("marker"))
        #expect(await inbox.texts == ["marker"])
        #expect(lines.all.filter { $0.contains(encrypted) }.count == 1)
        await bot.disconnect()
    }

    @Test func kickIsReported() async throws {
        let (bot, botUser, alice, room, inbox) = try await TestHomeserver.joinedBot()
        try await alice.client.request("POST", MatrixClient.clientPath("rooms", room, "kick"),
                                       body: ["user_id": .string(botUser.userID), "reason": "bye"])
        let kicked = MembershipEvent(channel: .group(room), user: botUser.userID, change: .kicked, by: alice.userID)
        #expect(await inbox.wait { $0.contains(.membership(kicked)) })
        await bot.disconnect()
    }

    @Test func profilesAndMembers() async throws {
        let (bot, botUser, alice, room, _) = try await TestHomeserver.joinedBot()
        try await bot.setOwnProfile(name: "Helpdesk <Bot>", avatar: "mxc://localhost/abc")
        let profiles = try await bot.profiles(of: [botUser.userID, "@nobody-\(UUID().uuidString.prefix(6).lowercased()):localhost"])
        #expect(profiles == [Profile(id: botUser.userID, name: "Helpdesk <Bot>", avatar: "mxc://localhost/abc")])
        #expect(try await bot.members(of: .group(room)) == [alice.userID, botUser.userID].sorted())
        await bot.disconnect()
    }
}
