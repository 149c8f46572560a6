import Foundation
import ParleyCore
import ParleyTesting
import Testing
@testable import ParleyMatrix

/// A direct room the bot makes is named by an alias only its account can compute: a process
/// that needs a room with someone while another process's room for them is still being made
/// (its maker was killed mid-request) takes that room instead of making a second one.
@Suite(.enabled(if: TestSynapse.isConfigured)) struct MatrixDirectRoomAliasTests {
    /// The room another process of the bot made, which this one has not seen in any list of
    /// rooms (it read them before), the invite not sent yet: taken, alice invited, recorded.
    @Test func aRoomMadeElsewhereUnderTheAliasIsTakenNotMadeAgain() async throws {
        let botUser = try await TestHomeserver.register("bot")
        let alice = try await TestHomeserver.register("alice")
        let bot = try TestHomeserver.transport(botUser)
        try await bot.ensureSession()
        try await bot.loadRooms()
        let name = try await bot.directRoomAliasName(for: alice.userID)
        let made = try await botUser.client.createRoom([
            "is_direct": true, "preset": "trusted_private_chat", "room_alias_name": .string(name),
            "initial_state": [MatrixTransport.directRoomMark(alice.userID)],
        ])

        #expect(try await bot.roomID(for: .person(alice.userID), create: true) == made)
        #expect(try await botUser.client.joinedAndInvitedMembers(room: made) == [alice.userID, botUser.userID].sorted())
        let direct = try await botUser.client.accountData(userID: botUser.userID, type: "m.direct")
        #expect(direct == [alice.userID: [.string(made)]])
    }

    /// The server sends the room's initial state after the maker's join: a room under the
    /// alias that the bot is in but whose mark is not there yet is waited for, not given up.
    @Test func aRoomStillBeingMadeIsWaitedFor() async throws {
        let botUser = try await TestHomeserver.register("bot")
        let alice = try await TestHomeserver.register("alice")
        let clock = ManualClock()
        let bot = try TestHomeserver.transport(botUser) { $0.clock = clock }
        try await bot.ensureSession()
        try await bot.loadRooms()
        let name = try await bot.directRoomAliasName(for: alice.userID)
        let made = try await botUser.client.createRoom(["is_direct": true, "preset": "trusted_private_chat", "room_alias_name": .string(name)])

        let asked = Task { try await bot.roomID(for: .person(alice.userID), create: true) }
        try await withTimeout("the wait for the mark") { await clock.waitForSleepers(1) }
        try await botUser.client.setState(room: made, type: MatrixTransport.directRoomMarkType, content: ["user": .string(alice.userID)])
        await clock.advance(by: MatrixTransport.aliasedRoomPoll)
        #expect(try await withTimeout("the room") { try await asked.value } == made)
    }

    /// The alias is the same for every process of the account (its key is in the account's
    /// data), differs per person, and is not set as the room's canonical alias (clients would
    /// show it as the room's name).
    @Test func theAliasIsSharedByTheAccountsProcessesAndHiddenFromClients() async throws {
        let botUser = try await TestHomeserver.register("bot")
        let alice = try await TestHomeserver.register("alice")
        let bob = try await TestHomeserver.register("bob")
        let first = try TestHomeserver.transport(botUser)
        let second = try TestHomeserver.transport(botUser)
        try await first.ensureSession()
        try await second.ensureSession()
        let name = try await first.directRoomAliasName(for: alice.userID)
        #expect(try await second.directRoomAliasName(for: alice.userID) == name)
        #expect(try await first.directRoomAliasName(for: bob.userID) != name)
        #expect(name.hasPrefix("parley-dm-") && !name.contains(alice.userID.dropFirst().prefix(5)))

        let room = try await first.roomID(for: .person(alice.userID), create: true)
        #expect(try await alice.client.resolveAlias("#\(name):\(first.serverName)") == room)
        let canonical = try await botUser.client.state(room: room, type: "m.room.canonical_alias")
        #expect(canonical?["alias"] == nil)
    }

    /// A room the bot has left no longer serves: its alias is freed and a new room made under it.
    @Test func theAliasOfARoomTheBotLeftIsFreedForANewRoom() async throws {
        let botUser = try await TestHomeserver.register("bot")
        let alice = try await TestHomeserver.register("alice")
        let first = try TestHomeserver.transport(botUser)
        let left = try await first.roomID(for: .person(alice.userID), create: true)
        try await botUser.client.leave(room: left)

        let later = try TestHomeserver.transport(botUser)
        let room = try await later.roomID(for: .person(alice.userID), create: true)
        #expect(room != left)
        let name = try await later.directRoomAliasName(for: alice.userID)
        #expect(try await alice.client.resolveAlias("#\(name):\(later.serverName)") == room)
        #expect(try await botUser.client.joinedAndInvitedMembers(room: room) == [alice.userID, botUser.userID].sorted())
    }

    /// A room under the alias that the bot is not in and cannot free (someone else made it) is
    /// given up once the wait for it is over: the bot's room is made without an alias, and is
    /// not the other user's room.
    @Test func anAliasTakenBySomeoneElseLeadsToARoomWithoutOne() async throws {
        let botUser = try await TestHomeserver.register("bot")
        let alice = try await TestHomeserver.register("alice")
        let mallory = try await TestHomeserver.register("mallory")
        let bot = try TestHomeserver.transport(botUser) { $0.directRoomSettleTimeout = .zero }
        try await bot.ensureSession()
        let name = try await bot.directRoomAliasName(for: alice.userID)
        let trap = try await TestHomeserver.createRoom(mallory, inviting: [alice.userID], extra: ["room_alias_name": .string(name)])

        let room = try await bot.roomID(for: .person(alice.userID), create: true)
        #expect(room != trap)
        #expect(try await alice.client.resolveAlias("#\(name):\(bot.serverName)") == trap)
        #expect(try await botUser.client.joinedAndInvitedMembers(room: room) == [alice.userID, botUser.userID].sorted())
    }
}
