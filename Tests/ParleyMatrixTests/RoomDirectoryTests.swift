import Foundation
import ParleyCore
import Testing
@testable import ParleyMatrix

/// The transport's knowledge of its rooms, without a server.
struct RoomDirectoryTests {
    @Test func mDirectIsReadForTheJoinedRoomsKeepingThisProcessesOwn() {
        var rooms = RoomDirectory()
        rooms.joined = ["!a:s", "!b:s", "!mine:s", "!group:s"]
        rooms.ownDirect = ["!mine:s": "@carol:s"]
        rooms.applyDirect(["@alice:s": ["!b:s", "!a:s", "!left:s"], "@bob:s": ["!gone:s"]])
        #expect(rooms.direct == ["!a:s": "@alice:s", "!b:s": "@alice:s", "!mine:s": "@carol:s"])
        #expect(rooms.directRoom(with: "@alice:s") == "!a:s")
        #expect(rooms.directRoom(with: "@bob:s") == nil)
        #expect(rooms.unknownJoined == ["!group:s"])
        rooms.notOwnDirect = ["!group:s"]
        #expect(rooms.unknownJoined.isEmpty)
    }

    @Test func aForgottenRoomLeavesEveryMap() {
        var rooms = RoomDirectory()
        let room = "!r:s"
        rooms.joined = [room, "!other:s"]
        rooms.direct = [room: "@alice:s"]
        rooms.ownDirect = [room: "@alice:s"]
        rooms.notOwnDirect = [room]
        rooms.encrypted = [room: true]
        rooms.encryptionSettings = [room: ["algorithm": "m.megolm.v1.aes-sha2"]]
        rooms.members = [room: ["@alice:s"]]
        rooms.warned = [room]
        rooms.unprunedSeen = [room: 3]
        rooms.forget(room)
        #expect(rooms.joined == ["!other:s"])
        #expect(rooms.direct.isEmpty && rooms.ownDirect.isEmpty && rooms.notOwnDirect.isEmpty)
        #expect(rooms.encrypted.isEmpty && rooms.encryptionSettings.isEmpty && rooms.members.isEmpty)
        #expect(rooms.warned.isEmpty && rooms.unprunedSeen.isEmpty)
    }
}
