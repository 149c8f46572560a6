import Foundation
import ParleyCore
import ParleyTesting
import ParleyStore
import Synchronization
import Testing
@testable import ParleyMatrix

/// `prune(before:)`: the Matrix tables keep what is inside the retention window, and what
/// exactly-once delivery needs, and nothing older.
@Suite struct MatrixStoreRetentionTests {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("parley-matrix-retention-\(UUID().uuidString).db").path
    static let cutoff = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01
    static let old = cutoff.addingTimeInterval(-86_400)
    static let recent = cutoff.addingTimeInterval(86_400)

    /// A store whose handling time is `now` (changed between calls to age the rows).
    static func store(_ path: String, now: FixedNow) throws -> MatrixStore {
        try MatrixStore(path: path, now: { now.get() })
    }

    static func envelope(_ id: String, at time: Date) -> Envelope {
        Envelope(id: id, channel: .group("!a:hs"), seq: 0, clientMessageID: UUID(), sender: "@alice:hs", timestamp: time,
                 payload: ["type": 1, "text": .string(id)])
    }

    @Test(arguments: TestDatabase.kinds)
    func oldMessagesSeenEventsAndReactionsGoRecentOnesStay(database: TestDatabase) async throws {
        let now = FixedNow(Self.old)
        let store = try Self.store(database.location("matrix"), now: now)
        _ = try await store.recordMessage(Self.envelope("$old", at: Self.old), room: "!a:hs", replyTo: nil)
        try await store.markSeen(["$oldSeen"], room: "!a:hs")
        try await store.recordReaction(eventID: "$oldReaction", room: "!a:hs", target: "$old", key: "👍", sender: "@bob:hs")
        now.set(Self.recent)
        _ = try await store.recordMessage(Self.envelope("$new", at: Self.recent), room: "!a:hs", replyTo: nil)
        try await store.recordReaction(eventID: "$newReaction", room: "!a:hs", target: "$new", key: "👍", sender: "@bob:hs")
        // Recent itself, on an old message: kept while it is inside the window.
        try await store.recordReaction(eventID: "$lateReaction", room: "!a:hs", target: "$old", key: "🎉", sender: "@bob:hs")

        // The message $old; the seen rows of $old, $oldSeen and $oldReaction; the reaction
        // $oldReaction (its target gone, itself old). Nothing else.
        #expect(try await store.prune(before: Self.cutoff) == 5)

        #expect(try await store.message("$old") == nil)
        #expect(try await store.message("$new")?.seq == 2)
        for id in ["$old", "$oldSeen", "$oldReaction"] { #expect(try await !store.isSeen(id), "\(id)") }
        for id in ["$new", "$newReaction", "$lateReaction"] { #expect(try await store.isSeen(id), "\(id)") }
        #expect(try await store.reaction(target: "$new", key: "👍", sender: "@bob:hs") == "$newReaction")
        #expect(try await store.reaction(target: "$old", key: "🎉", sender: "@bob:hs") == "$lateReaction")
        #expect(try await store.reaction(target: "$old", key: "👍", sender: "@bob:hs") == nil)
        // The counter stays: a later message never reuses a number.
        now.set(Self.recent)
        #expect(try await store.recordMessage(Self.envelope("$later", at: Self.recent), room: "!a:hs", replyTo: nil) == 3)
        #expect(try await store.prune(before: Self.cutoff) == 0)
    }

    @Test(arguments: TestDatabase.kinds)
    func theNewestHandledEventOfEachRoomStaysHowEverOld(database: TestDatabase) async throws {
        // A backfill walks back to the newest handled event: without it a quiet room's old
        // history would be delivered again after a burst.
        let now = FixedNow(Self.old)
        let store = try Self.store(database.location("matrix"), now: now)
        try await store.markSeen(["$a1", "$a2"], room: "!a:hs")
        try await store.markSeen(["$b1"], room: "!b:hs")

        #expect(try await store.prune(before: Self.cutoff) == 1)
        #expect(try await !store.isSeen("$a1"))
        #expect(try await store.isSeen("$a2"))
        #expect(try await store.isSeen("$b1"))
    }

    @Test func handledEventsFromBeforeTheUpgradeCountAsHandledAtIt() async throws {
        // The older schema, with a handled event, then opened by this version.
        do {
            let old = try Migrations(name: "matrix", steps: Array(MatrixStore.migrations.steps.prefix(2))).open(path)
            try old.run("INSERT INTO matrix_seen (event_id, room_id) VALUES ('$before', '!a:hs'), ('$newest', '!a:hs')")
        }
        let store = try MatrixStore(path: path)
        let upgraded = Date()
        #expect(try await store.prune(before: upgraded.addingTimeInterval(-60)) == 0)
        #expect(try await store.isSeen("$before"))
        #expect(try await store.prune(before: upgraded.addingTimeInterval(60)) == 1)
        #expect(try await !store.isSeen("$before"))
    }
}

/// The store's handling time, set by the test.
final class FixedNow: Sendable {
    private let date: Mutex<Date>
    init(_ date: Date) { self.date = Mutex(date) }
    func set(_ new: Date) { date.withLock { $0 = new } }
    func get() -> Date { date.withLock { $0 } }
}
