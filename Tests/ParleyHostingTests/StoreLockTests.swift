import Foundation
import ParleyBots
import ParleyHosting
import Testing

/// One process at a time per store: a second is refused, told who holds it.
@Suite struct StoreLockTests {
    static func folder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-lock-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder + "/bots", withIntermediateDirectories: true)
        try "storage: { path: state/parley.db }\n".write(toFile: folder + "/config.yaml", atomically: true, encoding: .utf8)
        try "name: News\ncommands: { ping: { reply: pong } }\n".write(toFile: folder + "/bots/news.yaml", atomically: true, encoding: .utf8)
        return folder
    }

    @Test func aSecondHolderIsRefusedWithTheFirstOnesPid() throws {
        let folder = try Self.folder()
        let first = try StoreLock(storagePath: folder + "/parley.db", shownPath: "parley.db", holder: "parley run")
        do {
            _ = try StoreLock(storagePath: folder + "/parley.db", shownPath: "parley.db", holder: "parley broadcast")
            Issue.record("a second lock was granted")
        } catch {
            #expect(error.description == "the storage parley.db is in use by process pid \(getpid()) (parley run); "
                    + "stop it first (one process at a time keeps a store)")
        }
        first.release()
        let second = try StoreLock(storagePath: folder + "/parley.db", shownPath: "parley.db", holder: "parley broadcast")
        second.release()
        #expect(try HostStorage(config: nil, resolve: { $0 }, override: ":memory:").lock(holder: "x") == nil)
    }

    @Test func aBroadcastIsRefusedWhileTheHostRunsOnTheStore() async throws {
        let folder = try Self.folder()
        let resolve: @Sendable (String) -> String = { folder + "/" + $0 }
        let loaded = HostLoader.load(configFile: "config.yaml", resolve: resolve, environment: [:])
        #expect(loaded.errors.isEmpty, "\(loaded.errors)")
        let host = try await RunningHost.make(loaded, options: RunningHost.Options(resolve: resolve, logger: .silent))
        switch BroadcastDesk.open(configFile: "config.yaml", resolve: resolve, environment: [:]) {
        case .success: Issue.record("the desk opened a store the host holds")
        case .failure(let error):
            #expect(error.description.contains("the storage state/parley.db is in use by process pid \(getpid()) (parley run)"), "\(error)")
        }
        await host.shutdown()
        switch BroadcastDesk.open(configFile: "config.yaml", resolve: resolve, environment: [:]) {
        case .success(let desk): await desk.close()
        case .failure(let error): Issue.record("the desk could not open the released store: \(error)")
        }
    }
}

/// A truncated store is refused, not recreated empty.
@Suite struct EmptyStoreTests {
    @Test(arguments: ["parley.db", "parley.hub.db", "parley.news.db"])
    func aDatabaseTruncatedToNothingIsRefused(file: String) async throws {
        let folder = try StoreLockTests.folder()
        let resolve: @Sendable (String) -> String = { folder + "/" + $0 }
        let loaded = HostLoader.load(configFile: "config.yaml", resolve: resolve, environment: [:])
        let first = try await RunningHost.make(loaded, options: RunningHost.Options(resolve: resolve, logger: .silent))
        await first.start()
        await first.shutdown()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: folder + "/state/" + file + suffix) }
        #expect(FileManager.default.createFile(atPath: folder + "/state/" + file, contents: Data()))
        do {
            _ = try await RunningHost.make(loaded, options: RunningHost.Options(resolve: resolve, logger: .silent))
            Issue.record("a truncated \(file) was taken as a fresh store")
        } catch {
            #expect(error.description == "state/\(file) is empty (0 bytes): truncated, or not Parley's; "
                    + "restore from a backup, or move it away to start afresh")
        }
        switch BroadcastDesk.open(configFile: "config.yaml", resolve: resolve, environment: [:]) {
        case .success: Issue.record("the desk opened a truncated store")
        case .failure(let error): #expect(error.description.contains("state/\(file) is empty (0 bytes)"), "\(error)")
        }
    }
}
