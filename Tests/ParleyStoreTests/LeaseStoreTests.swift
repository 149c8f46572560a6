import Foundation
import ParleyTesting
import Testing
@testable import ParleyStore

/// Leases and fencing on the test PostgreSQL; skipped without one. Each test uses its own
/// lease names (the lease table is shared by the database's schemas).
@Suite(.enabled(if: TestDatabase.postgresURL != nil, "no PostgreSQL: run scripts/postgres start"))
struct LeaseStoreTests {
    let url = TestDatabase.postgresURL ?? ""
    func unique(_ name: String) -> String { "\(name)-\(UUID().uuidString.prefix(8))" }

    @Test func aLeaseIsHeldByOneUntilItExpiresThenTakenAtTheNextGeneration() throws {
        let leases = try LeaseStore(location: url)
        let bot = unique("support")
        let first = try #require(try leases.acquire(bot, holder: "a", seconds: 0.3))
        #expect(try leases.acquire(bot, holder: "b", seconds: 0.3) == nil)
        #expect(try leases.renew(bot, holder: "a", generation: first, seconds: 0.3))
        #expect(try !leases.renew(bot, holder: "b", generation: first, seconds: 0.3))
        // Bounded wait on the database's clock for the expiry.
        var second: Int64?
        for _ in 0..<40 where second == nil {
            second = try leases.acquire(bot, holder: "b", seconds: 30)
            if second == nil { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(second == first + 1)
        #expect(try !leases.renew(bot, holder: "a", generation: first, seconds: 30))
        let row = try #require(try leases.leases().first { $0.name == bot })
        #expect(row.holder == "b" && row.isLive)
    }

    @Test func aReleasedLeaseIsFreeAtOnce() throws {
        let leases = try LeaseStore(location: url)
        let bot = unique("desk")
        let generation = try #require(try leases.acquire(bot, holder: "a", seconds: 60))
        try leases.release(bot, holder: "a", generation: generation)
        #expect(try leases.acquire(bot, holder: "b", seconds: 60) == generation + 1)
    }

    @Test func onlyOneOfManyContendersGetsAFreeLease() async throws {
        let bot = unique("race")
        let stores = try (0..<6).map { _ in try LeaseStore(location: url) }
        let winners = await withTaskGroup(of: Int64?.self) { group in
            for (index, store) in stores.enumerated() {
                group.addTask { try? store.acquire(bot, holder: "p\(index)", seconds: 60) }
            }
            var won = 0
            for await generation in group where generation != nil { won += 1 }
            return won
        }
        #expect(winners == 1)
    }

    /// The database refuses a write at a stale generation: after a takeover the old owner's
    /// outbox cannot be written, the new owner's can.
    @Test func writesOfAStaleGenerationAreRefusedByTheDatabase() throws {
        let leases = try LeaseStore(location: url)
        let bot = unique("fenced")
        let schema = "t_fence_\(UUID().uuidString.prefix(8).lowercased())"
        let migrations = Migrations(name: "outbox", steps: [], postgresSteps: ["CREATE TABLE outbox (id TEXT PRIMARY KEY)"])
        let old = try #require(try leases.acquire(bot, holder: "a", seconds: 60))
        let oldOwner = try migrations.open(StoreLocation.postgres(url, schema: schema, fence: .init(lease: bot, generation: old)))
        try oldOwner.run("INSERT INTO outbox VALUES (?)", ["m1"])
        try leases.release(bot, holder: "a", generation: old)  // as if it had expired
        let new = try #require(try leases.acquire(bot, holder: "b", seconds: 60))
        let newOwner = try migrations.open(StoreLocation.postgres(url, schema: schema, fence: .init(lease: bot, generation: new)))
        #expect { try oldOwner.run("INSERT INTO outbox VALUES (?)", ["m2"]) } throws: { ($0 as? StoreError)?.isStaleLease == true }
        #expect { try oldOwner.run("DELETE FROM outbox") } throws: { ($0 as? StoreError)?.isStaleLease == true }
        try newOwner.run("INSERT INTO outbox VALUES (?)", ["m3"])
        let unfenced = try Connection(path: StoreLocation.postgres(url, schema: schema))
        #expect(try unfenced.rows("SELECT id FROM outbox ORDER BY id") == [["m1"], ["m3"]])
    }

    @Test func processesReportThemselvesAndStaleOnesAreForgotten() throws {
        let leases = try LeaseStore(location: url)
        let id = unique("proc")
        try leases.heartbeat(id: id, host: "h1", pid: 42, bots: ["a", "b"])
        #expect(try leases.members().contains { $0.id == id && $0.pid == 42 && $0.host == "h1" && $0.bots == ["a", "b"] })
        try leases.forget(id: id, staleAfter: 3600)
        #expect(try !leases.members().contains { $0.id == id })
    }

    /// The peers of a process are the live ones that run one of its bots: another cluster's
    /// processes on the same database, and processes not seen lately, do not count.
    @Test func peersAreTheLiveProcessesThatShareABot() throws {
        let leases = try LeaseStore(location: url)
        let (support, news, other) = (unique("support"), unique("news"), unique("other"))
        let ids = (0..<3).map { unique("peer\($0)") }
        try leases.heartbeat(id: ids[0], host: "h", pid: 1, bots: [support, news])
        try leases.heartbeat(id: ids[1], host: "h", pid: 2, bots: [news])
        try leases.heartbeat(id: ids[2], host: "h", pid: 3, bots: [other])
        #expect(try leases.peers(sharing: [support, news], seenWithin: 60) == 2)
        #expect(try leases.peers(sharing: [support], seenWithin: 60) == 1)
        #expect(try leases.peers(sharing: [other], seenWithin: 60) == 1)
        // Seen within the last -1 s: nobody (as if every report were older than the window).
        #expect(try leases.peers(sharing: [support, news], seenWithin: -1) == 0)
        for id in ids { try leases.forget(id: id, staleAfter: 86_400) }
    }

    /// Beyond its share a process takes only a lease that has been free for a while (an
    /// orphan): not one just given back, which is there for a process under its share.
    @Test func aLeaseJustGivenBackIsNotTakenAsAnOrphanUntilItHasBeenFreeForAWhile() throws {
        let leases = try LeaseStore(location: url)
        let bot = unique("orphan")
        let first = try #require(try leases.acquire(bot, holder: "a", seconds: 60))
        try leases.release(bot, holder: "a", generation: first)
        #expect(try leases.acquire(bot, holder: "c", seconds: 60, expiredFor: 0.3) == nil)
        // Bounded wait on the database's clock: free for 0.3 s, then an orphan.
        var orphan: Int64?
        for _ in 0..<40 where orphan == nil {
            orphan = try leases.acquire(bot, holder: "c", seconds: 60, expiredFor: 0.3)
            if orphan == nil { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(orphan == first + 1)
        // Given back again: an ordinary take is at once.
        try leases.release(bot, holder: "c", generation: first + 1)
        #expect(try leases.acquire(bot, holder: "b", seconds: 60) == first + 2)
    }

    @Test func sqliteHasNoLeases() {
        #expect(throws: StoreError.self) { try LeaseStore(location: "/tmp/x.db") }
    }
}
