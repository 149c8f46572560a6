import Foundation
import ParleyCore
@testable import ParleyHosting
import ParleyStore
import ParleyTesting
import Testing

/// Where a bot client keeps what: the whole of it beside the store on the embedded hub (its
/// history tells a repeat apart after a restart), only the outbox over Matrix (the transport
/// keeps its own record), nothing on disk in memory.
@Suite struct HostStorageTests {
    @Test func botClientsKeepTheirHistoryOnlyWhereTheTransportDoesNot() {
        let file = HostStorage(config: nil, resolve: { "/srv/" + $0 }, override: "data/parley.db")
        #expect(file.chat(bot: "support") == .sqlite(path: "/srv/data/parley.support.db"))
        #expect(file.outbox(bot: "support") == .outboxOnly(path: "/srv/data/parley.support.db"))
        #expect(file.chat(bot: "support").keepsHistoryOnDisk)
        #expect(!file.outbox(bot: "support").keepsHistoryOnDisk)

        let memory = HostStorage(config: nil, resolve: { $0 }, override: ":memory:")
        #expect(memory.chat(bot: "support") == .memory)
        #expect(memory.outbox(bot: "support") == .memory)
    }
}

/// `storage.durability`: the host sets it for every database the process opens, before it
/// opens any. In the run-alone group: while it is `full`, every database any other test opens
/// would sync each commit (a main run with it beside 1,000 tests timed out by the dozen).
@Suite(.enabled(if: RunAloneTests.enabled, "sets the process's durability: run with PARLEY_RUN_ALONE_TESTS=1 --filter RunAloneTests"))
struct HostDurabilityRunAloneTests {
    @Test func aHostWithDurabilityFullSetsItForTheProcess() async throws {
        defer { StoreDurability.current = .normal }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-durability-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder + "/bots", withIntermediateDirectories: true)
        try "storage: { path: state/parley.db, durability: full }\n".write(toFile: folder + "/config.yaml", atomically: true, encoding: .utf8)
        try "name: Desk\ncommands:\n  ping: { reply: pong }\n".write(toFile: folder + "/bots/desk.yaml", atomically: true, encoding: .utf8)
        let resolve: @Sendable (String) -> String = { folder + "/" + $0 }
        let loaded = HostLoader.load(configFile: "config.yaml", resolve: resolve, environment: [:])
        try #require(loaded.errors.isEmpty, "\(loaded.errors)")
        let running = try await RunningHost.make(loaded, options: RunningHost.Options(resolve: resolve, logger: .silent))
        // Every connection reads it when it opens (ConnectionTests: synchronous=FULL).
        #expect(StoreDurability.current == .full)
        await running.shutdown()
    }
}
