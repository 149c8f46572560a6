import Foundation
import ParleyCore
import ParleyTesting
import Testing
@testable import ParleyMatrix

/// Direct rooms: created on first send, found again through `m.direct`, mapped to `.person`.
@Suite(.enabled(if: TestSynapse.isConfigured)) struct MatrixDirectRoomTests {
    @Test func firstSendCreatesTheDirectRoomLaterSendsReuseIt() async throws {
        let botUser = try await TestHomeserver.register("bot")
        let alice = try await TestHomeserver.register("alice")
        let bot = try TestHomeserver.transport(botUser)
        let inbox = Inbox.start(try await bot.connect())
        let channel = Channel.person(alice.userID)

        let first = try await bot.send(OutgoingEnvelope(channel: channel, payload: ["type": 1, "text": "welcome"]))
        let room = try await bot.roomID(for: channel)
        let second = try await bot.send(OutgoingEnvelope(channel: channel, payload: ["type": 1, "text": "again"]))
        #expect(try await bot.roomID(for: channel) == room)
        #expect([first.seq, second.seq] == [1, 2])

        let direct = try await botUser.client.accountData(userID: botUser.userID, type: "m.direct")
        #expect(direct == [alice.userID: [.string(room)]])
        let invite = try await botUser.client.state(room: room, type: "m.room.member", key: alice.userID)
        #expect(invite?["membership"] == "invite")
        #expect(invite?["is_direct"] == true)

        try await alice.client.join(room)
        try await TestHomeserver.say(alice, "thanks", in: room)
        #expect(await inbox.waitForText("thanks"))
        let reply = try #require(await inbox.messages.first)
        #expect(reply.channel == channel)
        #expect(reply.seq == 3)
        #expect(await inbox.memberships.contains(MembershipEvent(channel: channel, user: alice.userID, change: .joined)))

        // Another process of the same bot (no shared database) finds the room through m.direct.
        let other = try TestHomeserver.transport(botUser)
        #expect(try await other.roomID(for: channel, create: true) == room)
        await bot.disconnect()
    }

    /// A batch to new users creates their direct rooms concurrently; each room must reach
    /// `m.direct` (the read-modify-write of concurrent creations used to lose some), so the
    /// next batch finds them instead of creating more.
    @Test func aBatchToNewUsersKeepsOneDirectRoomEach() async throws {
        let botUser = try await TestHomeserver.register("bot")
        let bot = try TestHomeserver.transport(botUser)
        var users: [String] = []
        for _ in 0..<8 { users.append(try await TestHomeserver.register("reader").userID) }
        for text in ["first", "second"] {
            let results = await bot.sendBatch(users.map { OutgoingEnvelope(channel: .person($0), payload: ["type": 1, "text": .string(text)]) })
            #expect(results.allSatisfy { (try? $0.get()) != nil })
        }
        let direct = try #require(try await botUser.client.accountData(userID: botUser.userID, type: "m.direct")?.objectValue)
        #expect(direct.keys.sorted() == users.sorted())
        #expect(direct.values.allSatisfy { $0.arrayValue?.count == 1 }, "\(direct)")
        // A fresh process of the same bot reads the same rooms from m.direct.
        let other = try TestHomeserver.transport(botUser)
        for user in users {
            #expect(try await other.roomID(for: .person(user)) == direct[user]?.arrayValue?.first?.stringValue)
        }
    }

    @Test func directInviteIsJoinedAndRecorded() async throws {
        let botUser = try await TestHomeserver.register("bot")
        let alice = try await TestHomeserver.register("alice")
        let room = try await TestHomeserver.createRoom(alice, inviting: [botUser.userID],
                                                       extra: ["is_direct": true, "preset": "trusted_private_chat"])
        try await TestHomeserver.say(alice, "hello before you joined", in: room)
        let bot = try TestHomeserver.transport(botUser)
        let inbox = Inbox.start(try await bot.connect())
        let invited = MembershipEvent(channel: .person(alice.userID), user: botUser.userID, change: .invited, by: alice.userID)
        #expect(await inbox.wait { $0.contains(.membership(invited)) })
        #expect(try await bot.roomID(for: .person(alice.userID)) == room)
        // Sent after the invite, so it is for the bot: delivered once it joined.
        #expect(await inbox.waitForText("hello before you joined"))
        #expect(await inbox.messages.first?.channel == .person(alice.userID))
        await bot.disconnect()
    }

    @Test func declinedInviteIsLeft() async throws {
        let botUser = try await TestHomeserver.register("bot")
        let mallory = try await TestHomeserver.register("mallory")
        let room = try await TestHomeserver.createRoom(mallory, inviting: [botUser.userID])
        let bot = try TestHomeserver.transport(botUser) { config in
            config.invitePolicy = { !$0.inviter.contains("mallory") }
        }
        _ = try await bot.connect()
        await bot.disconnect()
        let membership = try await mallory.client.state(room: room, type: "m.room.member", key: botUser.userID)
        #expect(membership?["membership"] == "leave")
    }
}
