import Foundation
import ParleyBots
import ParleyCore
@testable import ParleyHosting
import ParleyHub
import ParleyStore
import Synchronization
import Testing
import ParleyTesting

/// A `.parley/` folder written by the release that kept the embedded hub in `parley.hub.db` and
/// the web chat's sessions in `parley.web.db` (Tests/Fixtures/upgrade-hub-file, made by its
/// `make-fixture`): the host moves their tables into `parley.db` at start, once, keeps the old
/// files as backups and logs it; the conversation and the visitor's session go on.
@Suite struct HubMoveTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fixtures/upgrade-hub-file/parley").standardized.path

    /// A copy of the fixture as `state/` of a new folder, with a config keeping the store there.
    static func folder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-hub-move-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder + "/bots", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture, toPath: folder + "/state")
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder + "/state")
        try "transport: { kind: local }\nstorage: { path: state/parley.db }\n".write(toFile: folder + "/config.yaml", atomically: true, encoding: .utf8)
        let bot = try String(contentsOfFile: fixture + "/../../../../bots/support.yaml", encoding: .utf8)
        try bot.write(toFile: folder + "/bots/support.yaml", atomically: true, encoding: .utf8)
        return folder
    }

    /// Starts the host on `folder`, runs `body` with its hub, and stops it; returns the log.
    static func run(_ folder: String, _ body: (Hub, _ store: String) throws -> Void = { _, _ in }) async throws -> [String] {
        let lines = Mutex<[String]>([])
        let resolve: @Sendable (String) -> String = { folder + "/" + $0 }
        let loaded = HostLoader.load(configFile: "config.yaml", resolve: resolve, environment: [:], checkTests: false)
        #expect(loaded.errors.isEmpty, "\(loaded.errors)")
        // The host's clock stands a second after the fixture's last message: the refund flow it
        // left waiting for an answer has not timed out (on the wall clock it would have).
        let last = try Connection(path: fixture + "/parley.hub.db").scalar("SELECT MAX(time) FROM hub_messages")?.double ?? 0
        var options = RunningHost.Options(resolve: resolve, logger: BotLogger(level: .info, sink: { line in lines.withLock { $0.append(line) } }))
        options.clock = ManualClock(start: Date(timeIntervalSince1970: last + 1))
        let running = try await RunningHost.make(loaded, options: options)
        _ = await running.start()
        let hub = try #require(running.hub)
        try body(hub, folder + "/state/parley.db")
        await running.shutdown()
        return lines.withLock { $0 }
    }

    /// The texts of the fixture's conversation between the visitor and the support bot.
    static func conversation(_ hub: Hub, store: String) throws -> [String] {
        let users = try Connection(path: store).rows("SELECT id FROM hub_users ORDER BY id").compactMap { $0[0].string }
        let visitor = try #require(users.first { $0.hasPrefix("web-") })
        return try hub.messages(in: .person(visitor), seenBy: "support").map { envelope in
            envelope.payload.objectValue?["text"]?.stringValue ?? "(\(envelope.payload.objectValue?["type"]?.intValue ?? 0))"
        }
    }

    @Test func theHostMovesTheHubsTablesIntoItsStoreOnceAndKeepsABackup() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let before = try Connection(path: Self.fixture + "/parley.hub.db").scalar("SELECT COUNT(*) FROM hub_messages")?.int ?? 0
        #expect(before == 8, "the fixture holds the visitor's three messages and the answers")
        var first: [String] = []
        let log = try await Self.run(folder) { hub, store in first = try Self.conversation(hub, store: store) }
        #expect(first.count == 8 && first.first == "/help" && first.contains("/status") && first.last == "What is your order number?", "\(first)")
        let moved = log.filter { $0.contains("moved the embedded hub's tables") }
        #expect(moved.count == 1 && moved[0].contains("(\(before) messages)") && moved[0].contains("parley.hub.db.bak"), "\(log)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/state/parley.hub.db"))
        #expect(FileManager.default.fileExists(atPath: folder + "/state/parley.hub.db.bak"))
        // Started again: nothing to move, the same conversation, nothing doubled.
        var second: [String] = []
        let again = try await Self.run(folder) { hub, store in second = try Self.conversation(hub, store: store) }
        #expect(!again.contains { $0.contains("moved the embedded hub's tables") })
        #expect(second == first)
    }

    @Test func aMoveCutBeforeTheRenameOnlyRenamesAtTheNextStart() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let legacy = folder + "/state/parley.hub.db", store = folder + "/state/parley.db"
        let move = try #require(try Hub.moveStore(from: legacy, into: store))
        // What a crash between the commit and the rename leaves: both files.
        try FileManager.default.moveItem(atPath: move.backup, toPath: legacy)
        let again = try #require(try Hub.moveStore(from: legacy, into: store))
        #expect(again.messages == 0)
        #expect(try Connection(path: store).scalar("SELECT COUNT(*) FROM hub_messages")?.int == move.messages)
        #expect(FileManager.default.fileExists(atPath: move.backup) && !FileManager.default.fileExists(atPath: legacy))
    }

    @Test func bothFilesHoldingHubDataIsRefusedAndNothingChanges() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let legacy = folder + "/state/parley.hub.db", store = folder + "/state/parley.db"
        // A hub started on parley.db with no old file beside it, then the old file put back.
        try FileManager.default.moveItem(atPath: legacy, toPath: folder + "/aside.db")
        let hub = try Hub(path: store)
        try hub.addUser(Profile(id: "someone"))
        try hub.close()
        try FileManager.default.moveItem(atPath: folder + "/aside.db", toPath: legacy)
        #expect { try Hub.moveStore(from: legacy, into: store) } throws: { error in
            "\(error)".contains("both") && "\(error)".contains("nothing was moved")
        }
        #expect(FileManager.default.fileExists(atPath: legacy) && !FileManager.default.fileExists(atPath: legacy + ".bak"))
        #expect(try Connection(path: store).scalar("SELECT COUNT(*) FROM hub_messages")?.int == 0)
    }

    @Test func theWebChatsSessionsMoveIntoTheStoreAndTheVisitorIsKnownAfter() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let legacy = try Connection(path: Self.fixture + "/parley.web.db")
        let stored = try legacy.rows("SELECT secret_hash, visitor FROM web_sessions")
        #expect(stored.count == 1)
        let storage = HostStorage(config: nil, resolve: { folder + "/" + $0 }, override: "state/parley.db")
        let lines = Mutex<[String]>([])
        let logger = BotLogger(level: .info, sink: { line in lines.withLock { $0.append(line) } })
        _ = try WebSessionStore.open(storage, logger: logger, clock: SystemClock())
        #expect(lines.withLock { $0 }.filter { $0.contains("moved the web chat's 1 visitor sessions") && $0.contains("parley.web.db.bak") }.count == 1)
        #expect(!FileManager.default.fileExists(atPath: folder + "/state/parley.web.db"))
        let moved = try Connection(path: folder + "/state/parley.db").rows("SELECT secret_hash, visitor FROM web_sessions")
        #expect(moved == stored)
        // Opened again: nothing more to move.
        _ = try WebSessionStore.open(storage, logger: logger, clock: SystemClock())
        #expect(lines.withLock { $0 }.count == 1)
    }
}
