import Foundation
import ParleyCore
import ParleyTesting
import Testing
@testable import ParleyMatrix

/// A direct room whose `m.direct` entry was never written — its maker died between making the
/// room and recording it (a broadcast's send in a cluster) — is found by the next process that
/// needs a room with that person, instead of a second room being made.
@Suite(.enabled(if: TestSynapse.isConfigured)) struct MatrixOrphanedDirectRoomTests {
    @Test(arguments: [false, true])
    func aDirectRoomMadeButNeverRecordedIsFoundNotMadeAgain(personJoined: Bool) async throws {
        let botUser = try await TestHomeserver.register("bot")
        let alice = try await TestHomeserver.register("alice")
        // The process that made the room dies before writing m.direct.
        let maker = try TestHomeserver.transport(botUser)
        try await maker.ensureSession()
        let made = try await maker.makeDirectRoom(with: alice.userID)
        // Meanwhile the person may accept the invite (the invite then no longer says is_direct).
        if personJoined { try await alice.client.join(made) }
        #expect(try await botUser.client.accountData(userID: botUser.userID, type: "m.direct") == nil)

        // A process that sends for the bot without a sync loop (a broadcast's send), and one with
        // its own view of the rooms: both take the room made before.
        let helper = try TestHomeserver.transport(botUser) { $0.rereadsRoomsBeforeCreating = true }
        #expect(try await helper.roomID(for: .person(alice.userID), create: true) == made)
        let owner = try TestHomeserver.transport(botUser)
        #expect(try await owner.roomID(for: .person(alice.userID), create: true) == made)
        let direct = try await botUser.client.accountData(userID: botUser.userID, type: "m.direct")
        #expect(direct == [alice.userID: [.string(made)]])
    }

    /// The mark counts only when the bot's own account set it: a room someone else made, with
    /// a mark naming alice, must not become the room alice's messages are sent to.
    @Test func aMarkSetByAnotherUserIsNotTaken() async throws {
        let botUser = try await TestHomeserver.register("bot")
        let alice = try await TestHomeserver.register("alice")
        let mallory = try await TestHomeserver.register("mallory")
        let trap = try await TestHomeserver.createRoom(mallory, inviting: [botUser.userID])
        try await mallory.client.setState(room: trap, type: MatrixTransport.directRoomMarkType, content: ["user": .string(alice.userID)])
        try await botUser.client.join(trap)

        let bot = try TestHomeserver.transport(botUser)
        var readers = [alice.userID]
        for _ in 0..<5 { readers.append(try await TestHomeserver.register("reader").userID) }
        let log = SynapseAccessLog()
        let mark = log.mark()
        // A batch to new people makes their rooms at once: one pass asks about the trap.
        let results = await bot.sendBatch(readers.map { OutgoingEnvelope(channel: .person($0), payload: ["type": 1, "text": "news"]) })
        #expect(results.allSatisfy { (try? $0.get()) != nil })
        let room = try await bot.roomID(for: .person(alice.userID))
        #expect(room != trap)
        let aliceMark = try await botUser.client.state(room: room, type: MatrixTransport.directRoomMarkType)
        #expect(aliceMark == ["user": .string(alice.userID)])
        #expect(await bot.rooms.notOwnDirect == [trap])
        if log.path != nil {
            // The log shows the path as sent: the room id percent-encoded.
            let path = "/rooms/%21\(trap.dropFirst().replacingOccurrences(of: ":", with: "%3A"))/state/\(MatrixTransport.directRoomMarkType)"
            #expect(log.requests(by: botUser.userID, since: mark, matching: path) == 1)
        } else {
            Issue.record("PARLEY_SYNAPSE_ACCESS_LOG is not set: the questions about the trap are not counted")
        }
    }
}
