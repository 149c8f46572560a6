import Foundation
import ParleyCore
import Synchronization
import Testing
import ParleyTesting
@testable import ParleyMatrix

/// What a busy or hostile homeserver user can grow is bounded: the rooms the account is in
/// (and the maps kept per room), and the events buffered for a consumer that falls behind.
@Suite struct MatrixBoundsTests {
    static func invite(_ room: String, from inviter: String = "@mallory:localhost") -> String {
        #""\#(room)":{"invite_state":{"events":[{"type":"m.room.member","state_key":"\#(LoopbackHomeserver.user)","sender":"\#(inviter)","content":{"membership":"invite"}}]}}"#
    }

    @Test func invitesBeyondMaxRoomsAreDeclinedEachWithALogLine() async throws {
        let invites = ["!i1:localhost", "!i2:localhost", "!i3:localhost"].map { Self.invite($0) }.joined(separator: ",")
        let homeserver = try LoopbackHomeserver(joinedRooms: ["!r0:localhost"]) { since in
            since == nil ? LoopbackHomeserver.sync(next: "s1", rooms: #""invite":{\#(invites)}"#) : LoopbackHomeserver.sync(next: "s1")
        }
        defer { homeserver.server.stop() }
        let lines = Mutex<[String]>([])
        let transport = try homeserver.transport {
            $0.maxRooms = 2
            $0.log = { line in lines.withLock { $0.append(line) } }
        }

        _ = try await withTimeout("connect", seconds: 15) { try await transport.connect() }
        await transport.disconnect()

        let answers = homeserver.paths.filter { $0.contains("/join/") || $0.hasSuffix("/leave") }
        #expect(answers == ["/_matrix/client/v3/join/!i1:localhost", "/_matrix/client/v3/rooms/!i2:localhost/leave",
                            "/_matrix/client/v3/rooms/!i3:localhost/leave"])
        #expect(lines.withLock { $0 } == ["!i2:localhost", "!i3:localhost"].map {
            "declined the invite to \($0) from @mallory:localhost: this account is in 2 rooms, the most max_rooms allows"
        })
    }

    @Test func aRoomLeftIsForgotten() async throws {
        // Invited, joined, kicked, again and again: what is kept per room must not pile up.
        let encryption = #"{"type":"m.room.encryption","state_key":"","sender":"@mallory:localhost","content":{"algorithm":"m.megolm.v1.aes-sha2"}}"#
        // The leave is held back until the test has seen the room's state: the sync loop runs
        // on its own and would otherwise be past it by the time the test looks.
        let leaveReleased = Mutex(false)
        let homeserver = try LoopbackHomeserver(joinedRooms: ["!e:localhost"]) { since in
            switch since {
            case nil: LoopbackHomeserver.sync(next: "s1", rooms: #""join":{"!e:localhost":{"state":{"events":[\#(encryption)]}}}"#)
            case "s1" where leaveReleased.withLock({ $0 }): LoopbackHomeserver.sync(next: "s2", rooms: #""leave":{"!e:localhost":{}}"#)
            case "s1": LoopbackHomeserver.sync(next: "s1")
            default: LoopbackHomeserver.sync(next: "s2")
            }
        }
        defer { homeserver.server.stop() }
        let transport = try homeserver.transport()

        _ = try await withTimeout("connect", seconds: 15) { try await transport.connect() }
        #expect(await transport.rooms.encrypted == ["!e:localhost": true])
        #expect(await transport.rooms.warned == ["!e:localhost"])
        leaveReleased.withLock { $0 = true }
        // A /sync from s2: the leave was handled.
        try await waitUntil("the sync after the leave") { homeserver.server.requests.contains { $0.path.contains("/sync") && $0.path.contains("since=s2") } }
        await transport.disconnect()

        #expect(await transport.rooms.encrypted.isEmpty)
        #expect(await transport.rooms.warned.isEmpty)
        #expect(await transport.rooms.joined.isEmpty)
    }

    @Test func aConsumerThatDoesNotReadHoldsTheSyncLoopAndLosesNothing() async throws {
        // Each /sync after the first brings 100 new messages, numbered on from the last.
        let homeserver = try LoopbackHomeserver(joinedRooms: ["!r:localhost"]) { since in
            let round = since.flatMap { Int($0.dropFirst()) } ?? 0
            guard round > 0 else { return LoopbackHomeserver.sync(next: "s1") }
            let events = (0..<100).map { LoopbackHomeserver.message("$\((round - 1) * 100 + $0)", text: "m") }
            return LoopbackHomeserver.sync(next: "s\(round + 1)",
                                           rooms: #""join":{"!r:localhost":{"timeline":{"events":[\#(events.joined(separator: ","))]}}}"#)
        }
        defer { homeserver.server.stop() }
        let transport = try homeserver.transport {
            $0.eventBufferLimit = 250
            $0.minimumSyncInterval = .zero
        }

        let stream = try await withTimeout("connect", seconds: 15) { try await transport.connect() }
        try await waitUntil("the sync loop holding") { await transport.isHoldingSync }

        // Two connection states, then three rounds of 100: the third took it past 250.
        #expect(await transport.bufferedEvents == 302)
        #expect(homeserver.paths.filter { $0.hasSuffix("/sync") }.count == 4)
        let ids = try await withTimeout("reading", seconds: 30) {
            var ids: [String] = []
            for await event in stream {
                if case .message(let envelope) = event { ids.append(envelope.id) }
                if ids.count == 1_000 { break }
            }
            return ids
        }
        await transport.disconnect()
        #expect(ids == (0..<1_000).map { "$\($0)" })
    }
}

/// Waits until `condition` holds, checking between yields, at most `seconds`.
func waitUntil(_ what: String, seconds: Double = 15, _ condition: @escaping @Sendable () async -> Bool) async throws {
    try await withTimeout(what, seconds: seconds) {
        while await !condition() {
            try Task.checkCancellation()
            await Task.yield()
        }
    }
}
