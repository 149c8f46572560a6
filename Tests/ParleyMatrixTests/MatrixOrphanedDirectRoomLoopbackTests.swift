import Foundation
import ParleyCore
import ParleyTesting
import Synchronization
import Testing
@testable import ParleyMatrix

/// Asking the joined rooms outside `m.direct` whether they are the account's own direct rooms
/// (see `MatrixOrphanedDirectRoomTests`), where the server refuses: what Synapse cannot be made
/// to do on cue.
@Suite struct MatrixOrphanedDirectRoomLoopbackTests {
    /// A room the account is no longer in (its list of joined rooms is older) answers 403: it is
    /// not a direct room of ours, and the send makes the person's room instead of failing on
    /// every try.
    @Test func aRoomTheServerRefusesToTellAboutIsNotOurs() async throws {
        let homeserver = try LoopbackHomeserver(joinedRooms: ["!gone:localhost"], sync: { _ in LoopbackHomeserver.sync(next: "s1") }) { request, path in
            if path.contains("/rooms/!gone:localhost/") { return .init(status: 403, body: #"{"errcode":"M_FORBIDDEN","error":"not in the room"}"#) }
            if path.hasSuffix("/createRoom") { return .init(status: 200, body: #"{"room_id":"!new:localhost"}"#) }
            if path.contains("/account_data/"), request.method == "PUT" { return .init(status: 200, body: "{}") }
            return nil
        }
        let bot = try homeserver.transport()
        #expect(try await bot.roomID(for: .person("@alice:localhost"), create: true) == "!new:localhost")
        #expect(await bot.rooms.notOwnDirect == ["!gone:localhost"])
    }

    /// A transient failure (503) fails the send, to be tried again, rather than make a second
    /// room for a person whose room it might be; the next try asks again.
    @Test func aTransientFailureFailsTheSendAndIsAskedAgain() async throws {
        let failing = Atomic<Bool>(true)
        let homeserver = try LoopbackHomeserver(joinedRooms: ["!maybe:localhost"], sync: { _ in LoopbackHomeserver.sync(next: "s1") }) { request, path in
            if path.contains("/rooms/!maybe:localhost/state/org.parley.direct") {
                return failing.load(ordering: .relaxed)
                    ? .init(status: 503, body: #"{"errcode":"M_UNKNOWN","error":"busy"}"#)
                    : .init(status: 200, body: #"{"type":"org.parley.direct","sender":"@bot:localhost","content":{"user":"@alice:localhost"}}"#)
            }
            if path.contains("/account_data/"), request.method == "PUT" { return .init(status: 200, body: "{}") }
            return nil
        }
        let bot = try homeserver.transport { $0.reconnectBackoff = (.milliseconds(1), .milliseconds(2)) }
        await #expect(throws: ParleyError.self) { try await bot.roomID(for: .person("@alice:localhost"), create: true) }
        #expect(!homeserver.paths.contains { $0.hasSuffix("/createRoom") })
        failing.store(false, ordering: .relaxed)
        #expect(try await bot.roomID(for: .person("@alice:localhost"), create: true) == "!maybe:localhost")
    }
}
