import ParleyCore
@testable import ParleyHosting
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
