import Foundation
import ParleyCore
import ParleyTesting
import Testing
@testable import ParleyMatrix

/// Sync: bursts beyond the timeline limit, restarts with the persisted position.
@Suite(.enabled(if: TestSynapse.isConfigured)) struct MatrixSyncTests {
    @Test func burstWhileOfflineIsBackfilledExactlyOnce() async throws {
        let botUser = try await TestHomeserver.register("bot")
        let alice = try await TestHomeserver.register("alice")
        let room = try await TestHomeserver.createRoom(alice, inviting: [botUser.userID])
        let database = TestHomeserver.freshDatabasePath()
        let first = try TestHomeserver.transport(botUser, databasePath: database)
        _ = try await first.connect()
        await first.disconnect()

        // 300 commands while the bot is away: far more than one sync's timeline holds.
        for index in 0..<300 { try await TestHomeserver.say(alice, "burst \(index)", in: room) }
        let bot = try TestHomeserver.transport(botUser, databasePath: database)
        let inbox = Inbox.start(try await bot.connect())
        try await TestHomeserver.say(alice, "marker", in: room)
        #expect(await inbox.waitForText("marker", timeout: .seconds(120)))

        let messages = await inbox.messages
        #expect(messages.compactMap { $0.payload["text"]?.stringValue } == (0..<300).map { "burst \($0)" } + ["marker"])
        #expect(messages.map(\.seq) == Array(1...301))
        #expect(Set(messages.map(\.id)).count == 301)
        await bot.disconnect()
    }

    @Test func liveBurstBeyondTheTimelineLimitLosesNothing() async throws {
        let (bot, _, alice, room, inbox) = try await TestHomeserver.joinedBot { $0.timelineLimit = 5 }
        for index in 0..<60 { try await TestHomeserver.say(alice, "live \(index)", in: room) }
        #expect(await inbox.waitForText("live 59", timeout: .seconds(120)))
        #expect(await inbox.texts == (0..<60).map { "live \($0)" })
        await bot.disconnect()
    }

    /// The sync filter leaves the bot's own events out: its sends do not end its long-poll, so
    /// a run of answers costs no sync of its own and a command arriving next is not kept
    /// waiting behind one. Only the command's arrival ends the long-poll here.
    @Test func ownSendsDoNotEndTheLongPoll() async throws {
        let (bot, _, alice, room, inbox) = try await TestHomeserver.joinedBot { $0.syncTimeout = .seconds(60) }
        try await TestHomeserver.say(alice, "ready", in: room)
        #expect(await inbox.waitForText("ready"))
        let before = await bot.syncCount
        for index in 0..<10 {
            _ = try await bot.send(OutgoingEnvelope(channel: .group(room), payload: ["type": 1, "text": .string("answer \(index)")]))
        }
        try await TestHomeserver.say(alice, "next command", in: room)
        #expect(await inbox.waitForText("next command"))
        #expect(await bot.syncCount - before == 1)
        await bot.disconnect()
    }

    /// A bot invited to a room with history answers what was said since its invite, nothing
    /// older (told apart by `unsigned.membership`), and sees its own arrival (a greeting's cue)
    /// though its own events are filtered out.
    @Test func aRoomJoinedLaterDeliversNothingFromBeforeTheInvite() async throws {
        let botUser = try await TestHomeserver.register("bot")
        let alice = try await TestHomeserver.register("alice")
        let bot = try TestHomeserver.transport(botUser)
        let inbox = Inbox.start(try await bot.connect())
        let room = try await TestHomeserver.createRoom(alice, inviting: [])
        for index in 0..<3 { try await TestHomeserver.say(alice, "old \(index)", in: room) }
        try await alice.client.invite(room: room, user: botUser.userID)
        try await TestHomeserver.say(alice, "since the invite", in: room)
        #expect(await inbox.wait { events in
            events.contains { if case .membership(let m) = $0 { m.user == botUser.userID && m.change == .joined } else { false } }
        })
        try await TestHomeserver.say(alice, "after the join", in: room)
        #expect(await inbox.waitForText("after the join"))
        #expect(await inbox.texts == ["since the invite", "after the join"])
        #expect(await inbox.memberships.filter { $0.user == botUser.userID }.map(\.change) == [.invited, .joined])
        await bot.disconnect()
    }

    @Test func restartNeitherReplaysNorLoses() async throws {
        let botUser = try await TestHomeserver.register("bot")
        let alice = try await TestHomeserver.register("alice")
        let room = try await TestHomeserver.createRoom(alice, inviting: [botUser.userID])
        let database = TestHomeserver.freshDatabasePath()

        let first = try TestHomeserver.transport(botUser, databasePath: database)
        let firstInbox = Inbox.start(try await first.connect())
        try await TestHomeserver.say(alice, "one", in: room)
        try await TestHomeserver.say(alice, "two", in: room)
        #expect(await firstInbox.waitForText("two"))
        await first.disconnect()

        try await TestHomeserver.say(alice, "three", in: room)
        try await TestHomeserver.say(alice, "four", in: room)
        let second = try TestHomeserver.transport(botUser, databasePath: database)
        let secondInbox = Inbox.start(try await second.connect())
        try await TestHomeserver.say(alice, "five", in: room)
        #expect(await secondInbox.waitForText("five"))

        #expect(await firstInbox.texts == ["one", "two"])
        #expect(await secondInbox.texts == ["three", "four", "five"])
        #expect(await secondInbox.messages.map(\.seq) == [3, 4, 5])
        #expect(try await second.history(of: .group(room), after: 1, limit: 10).compactMap { $0.payload["text"]?.stringValue }
            == ["two", "three", "four", "five"])
        await second.disconnect()
    }

    @Test func freshStartDeliversNoOldMessages() async throws {
        let (bot, botUser, alice, room, inbox) = try await TestHomeserver.joinedBot()
        try await TestHomeserver.say(alice, "before", in: room)
        #expect(await inbox.waitForText("before"))
        await bot.disconnect()
        // A new database: no sync position, so history stays history (also within the two
        // minutes Synapse caches the first transport's initial sync of this device).
        let fresh = try TestHomeserver.transport(botUser)
        let freshInbox = Inbox.start(try await fresh.connect())
        try await TestHomeserver.say(alice, "after", in: room)
        #expect(await freshInbox.waitForText("after"))
        let texts = await freshInbox.texts
        #expect(texts == ["after"])
        await fresh.disconnect()
    }
}
