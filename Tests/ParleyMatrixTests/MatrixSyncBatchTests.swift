import Foundation
import ParleyCore
import ParleyTesting
import ParleyStore
import Testing
@testable import ParleyMatrix

/// One commit per `/sync`: what a sync handled is written with its position in one
/// transaction, all or nothing, and its events reach the consumer after that commit.
@Suite struct MatrixSyncBatchTests {
    static func envelope(_ id: String, _ channel: Channel = .group("!a:hs")) -> Envelope {
        Envelope(id: id, channel: channel, seq: 0, clientMessageID: UUID(), sender: "@alice:hs",
                 timestamp: Date(timeIntervalSince1970: 1_700_000_000), payload: ["type": 1, "text": .string(id)])
    }

    static func writes() -> SyncWrites {
        var writes = SyncWrites()
        writes.markSeen(["$member"], room: "!a:hs")
        _ = writes.record(envelope("$1"), room: "!a:hs", replyTo: nil)
        _ = writes.record(envelope("$2", .person("@alice:hs")), room: "!d:hs", replyTo: nil)
        _ = writes.record(envelope("$3"), room: "!a:hs", replyTo: "$1")
        writes.record(ReactionRecord(eventID: "$r", room: "!a:hs", target: "$1", key: "👍", sender: "@alice:hs"))
        return writes
    }

    @Test(arguments: TestDatabase.kinds)
    func aSyncsWritesAndPositionAreCommittedTogether(database: TestDatabase) async throws {
        let path = database.location("matrix")
        let store = try MatrixStore(path: path)
        let seqs = try await store.apply(Self.writes(), since: ("@bot:hs", "s9"))

        #expect(seqs == [1, 1, 2])
        for id in ["$member", "$1", "$2", "$3", "$r"] { #expect(try await store.isSeen(id), "\(id)") }
        #expect(try await store.message("$3")?.replyTo?.seq == 1)
        #expect(try await store.reaction(eventID: "$r") == ReactionRecord(eventID: "$r", room: "!a:hs", target: "$1", key: "👍",
                                                                           sender: "@alice:hs"))
        #expect(try await store.session(userID: "@bot:hs").since == "s9")
    }

    @Test(arguments: TestDatabase.kinds)
    func aSyncWhoseCommitFailsLeavesNothingHandled(database: TestDatabase) async throws {
        let path = database.location("matrix")
        let store = try MatrixStore(path: path)
        // The last write of the batch fails: the table it goes to is gone.
        try Connection(path: path).execute("DROP TABLE matrix_reactions")

        await #expect(throws: ParleyError.self) { try await store.apply(Self.writes(), since: ("@bot:hs", "s9")) }

        for id in ["$member", "$1", "$2", "$3", "$r"] { #expect(try await !store.isSeen(id), "\(id)") }
        #expect(try await store.message("$1") == nil)
        #expect(try await store.session(userID: "@bot:hs").since == nil)
    }

    @Test(arguments: TestDatabase.kinds)
    func aReactionRedactedInTheSameSyncIsNeverRecorded(database: TestDatabase) async throws {
        let path = database.location("matrix")
        let store = try MatrixStore(path: path)
        var writes = SyncWrites()
        writes.record(ReactionRecord(eventID: "$r", room: "!a:hs", target: "$1", key: "👍", sender: "@alice:hs"))
        let removed = writes.removeReaction("$r", recorded: nil)
        writes.markSeen(["$redaction"], room: "!a:hs")
        _ = try await store.apply(writes, since: nil)

        #expect(removed?.key == "👍")
        #expect(try await store.reaction(eventID: "$r") == nil)
        #expect(try await store.isSeen("$redaction"))
    }

    /// A reply to a message of the same sync quotes it with its sequence number (the
    /// original is committed first), and a reaction undone in the same sync is reported
    /// added, then removed.
    @Test func repliesAndRedactionsWithinOneSyncSeeWhatCameBefore() async throws {
        let reply = #"{"event_id":"$2","type":"m.room.message","sender":"@bob:localhost","origin_server_ts":1767225600000,"content":{"msgtype":"m.text","body":"yes","m.relates_to":{"m.in_reply_to":{"event_id":"$1"}}}}"#
        let reaction = #"{"event_id":"$r","type":"m.reaction","sender":"@bob:localhost","origin_server_ts":1767225600000,"content":{"m.relates_to":{"rel_type":"m.annotation","event_id":"$1","key":"👍"}}}"#
        let redaction = #"{"event_id":"$x","type":"m.room.redaction","sender":"@bob:localhost","origin_server_ts":1767225600000,"redacts":"$r","content":{"redacts":"$r"}}"#
        let events = [LoopbackHomeserver.message("$1", text: "question"), reply, reaction, redaction].joined(separator: ",")
        let homeserver = try LoopbackHomeserver(joinedRooms: ["!r:localhost"]) { since in
            since == "s1"
                ? LoopbackHomeserver.sync(next: "s2", rooms: #""join":{"!r:localhost":{"timeline":{"events":[\#(events)]}}}"#)
                : LoopbackHomeserver.sync(next: since == nil ? "s1" : "s2")
        }
        defer { homeserver.server.stop() }
        let transport = try homeserver.transport { $0.minimumSyncInterval = .zero }

        let stream = try await withTimeout("connect", seconds: 15) { try await transport.connect() }
        let seen = try await withTimeout("reading", seconds: 30) {
            var seen: [TransportEvent] = []
            for await event in stream {
                if case .connection = event { continue }
                seen.append(event)
                if seen.count == 4 { break }
            }
            return seen
        }
        await transport.disconnect()

        guard case .message(let question) = seen[0], case .message(let answer) = seen[1],
              case .reaction(let added) = seen[2], case .reaction(let removed) = seen[3]
        else { Issue.record("unexpected events: \(seen)"); return }
        #expect(question.seq == 1 && answer.seq == 2)
        #expect(answer.replyTo == ReplyReference(messageID: "$1", seq: 1, sender: "@alice:localhost",
                                                 quoted: question.payload))
        #expect(added.added && added.emoji == "👍" && added.messageID == "$1")
        #expect(!removed.added && removed.emoji == "👍" && removed.messageID == "$1")
        // Nothing asked the server for the original: it came from this sync.
        #expect(!homeserver.paths.contains { $0.contains("/event/") })
    }
}
