import Foundation
import ParleyCore
import ParleyTesting
import ParleyStore
import Synchronization
import Testing
@testable import ParleyMatrix

/// The transport's stored state (no server needed), on each `TestDatabase` kind; the tests
/// of an older Parley's SQLite file and of an unopenable path are SQLite's.
@Suite struct MatrixStoreTests {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("parley-matrix-store-\(UUID().uuidString).db").path

    @Test(arguments: TestDatabase.kinds)
    func pruningKeepsTheNewestHandledEventsPerRoom(database: TestDatabase) async throws {
        let store = try MatrixStore(path: database.location("matrix"))
        try await store.markSeen((0..<12).map { "$a\($0)" }, room: "!a:hs")
        try await store.markSeen((0..<3).map { "$b\($0)" }, room: "!b:hs")
        try await store.pruneSeen(room: "!a:hs", keep: 5)
        var seen: [String] = []
        for id in (0..<12).map({ "$a\($0)" }) + (0..<3).map({ "$b\($0)" }) where try await store.isSeen(id) { seen.append(id) }
        #expect(seen == ["$a7", "$a8", "$a9", "$a10", "$a11", "$b0", "$b1", "$b2"])
    }

    @Test(arguments: TestDatabase.kinds)
    func sequenceNumbersArePerChannelAndStableForOneEvent(database: TestDatabase) async throws {
        let store = try MatrixStore(path: database.location("matrix"))
        func envelope(_ id: String, _ channel: Channel) -> Envelope {
            Envelope(id: id, channel: channel, seq: 0, clientMessageID: UUID(), sender: "@alice:hs",
                     timestamp: Date(timeIntervalSince1970: 1_700_000_000), payload: ["type": 1, "text": .string(id)])
        }
        #expect(try await store.recordMessage(envelope("$1", .group("!a:hs")), room: "!a:hs", replyTo: nil) == 1)
        #expect(try await store.recordMessage(envelope("$2", .person("@alice:hs")), room: "!d:hs", replyTo: nil) == 1)
        #expect(try await store.recordMessage(envelope("$3", .group("!a:hs")), room: "!a:hs", replyTo: "$1") == 2)
        #expect(try await store.recordMessage(envelope("$1", .group("!a:hs")), room: "!a:hs", replyTo: nil) == 1)
        let history = try await store.history(of: .group("!a:hs"), after: 0, limit: 10)
        #expect(history.map(\.id) == ["$1", "$3"])
        #expect(history.last?.replyTo == ReplyReference(messageID: "$1", seq: 1, sender: "@alice:hs", quoted: ["type": 1, "text": "$1"]))
    }

    @Test func unopenableDatabaseIsAStorageErrorNamingThePath() {
        #expect {
            _ = try MatrixStore(path: "/proc/parley-cannot-write-here/matrix.db")
        } throws: { error in
            (error as? ParleyError)?.code == .storage && (error as? ParleyError)?.context["path"] == "/proc/parley-cannot-write-here/matrix.db"
        }
    }

    @Test(arguments: TestDatabase.kinds)
    func aStorageErrorNamesTheLocationWithoutItsPassword(database: TestDatabase) async throws {
        let path = database.location("matrix")
        let store = try MatrixStore(path: path)
        try Connection(path: path).execute("DROP TABLE matrix_seen")
        await #expect {
            _ = try await store.isSeen("$gone")
        } throws: { error in
            guard let error = error as? ParleyError, error.code == .storage, let shown = error.context["path"] else { return false }
            if case .postgres(let url, _, _) = StoreLocation(path), let password = URLComponents(string: url)?.password {
                return shown == StoreLocation(path).shown && !shown.contains(password) && !error.message.contains(password)
            }
            return shown == path
        }
    }

    /// The database and its WAL, as bytes someone copying the files would get.
    static func bytesOnDisk(_ path: String) -> Data {
        ["", "-wal", "-shm"].reduce(into: Data()) { all, suffix in
            all += FileManager.default.contents(atPath: path + suffix) ?? Data()
        }
    }

    @Test func aTokenAnOlderParleyStoredIsErasedFromTheDisk() async throws {
        let token = "syt_b2xkX3Rva2Vu_older_parley_kept_me"
        do {
            let old = try MatrixStore.migrations.open(path)
            try old.run("INSERT INTO matrix_session (user_id, access_token, device_id, since) VALUES ('@bot:hs', ?, 'DEV', 's1')",
                        [.text(token)])
        }
        #expect(Self.bytesOnDisk(path).range(of: Data(token.utf8)) != nil)
        let logged = Mutex<[String]>([])
        do {
            let store = try MatrixStore(path: path, log: { line in logged.withLock { $0.append(line) } })
            let session = try await store.session(userID: "@bot:hs")
            #expect(session.deviceID == "DEV" && session.since == "s1")
            #expect(Self.bytesOnDisk(path).range(of: Data(token.utf8)) == nil)
        }
        #expect(Self.bytesOnDisk(path).range(of: Data(token.utf8)) == nil)
        #expect(logged.withLock { $0 } == ["erased the access token an older Parley stored in \(path): it is no longer kept on disk"])
    }
}
