import Foundation
import ParleyTesting
import Synchronization
import Testing
@testable import ParleyStore

/// Writes behind the callers' backs: each committed once, in the order queued, many in one
/// batch; one that fails is given up on alone and reported; `flush` waits for all queued.
@Suite struct WriteBehindTests {
    /// A table written through a `WriteBehind`, on either database.
    final class Sink: Sendable {
        let connection: Mutex<Connection>
        let batches = Atomic<Int>(0)
        let failures = Mutex<[String]>([])

        init(_ location: String) throws {
            let migrations = Migrations(name: "sink", steps: ["CREATE TABLE sink (n INTEGER PRIMARY KEY, writer INTEGER NOT NULL)"],
                                        postgresSteps: ["CREATE TABLE sink (n BIGINT PRIMARY KEY, writer BIGINT NOT NULL)"])
            connection = Mutex(try migrations.open(location))
        }

        func writeBehind() -> WriteBehind {
            WriteBehind(label: "test-sink", maxStatements: 50, perform: { write in
                self.batches.add(1, ordering: .relaxed)
                _ = try self.connection.withLock { try $0.batch(write) }
            }, failed: { error in self.failures.withLock { $0.append(error) } })
        }

        func rows() throws -> [[StoreValue]] {
            try connection.withLock { try $0.rows("SELECT n, writer FROM sink ORDER BY n") }
        }
    }

    @Test(arguments: TestDatabase.kinds) func everyWriteLandsOnceInFewBatchesAndFlushWaitsForThem(database: TestDatabase) throws {
        let sink = try Sink(database.location("behind"))
        let behind = sink.writeBehind()
        // Four writers queue 100 writes each (two statements a write) while the connection is
        // held: the drain takes the first and waits, the rest pile up behind it.
        sink.connection.withLock { _ in
            DispatchQueue.concurrentPerform(iterations: 4) { writer in
                for index in 0..<100 {
                    let n = Int64(writer * 1_000 + index * 2)
                    behind.enqueue([("INSERT INTO sink (n, writer) VALUES (?, ?)", [.integer(n), .integer(Int64(writer))]),
                                    ("INSERT INTO sink (n, writer) VALUES (?, ?)", [.integer(n + 1), .integer(Int64(writer))])])
                }
            }
            #expect(behind.backlog == 400)
        }
        behind.flush()
        #expect(behind.backlog == 0)
        let rows = try sink.rows()
        #expect(rows.count == 800)
        #expect(Set(rows.compactMap { $0[0].int64 }).count == 800)
        // The first batch (what was queued when the drain started), then 25 writes (50
        // statements, the cap) a batch: 16 or 17 batches for 400 writes.
        #expect((16...17).contains(sink.batches.load(ordering: .relaxed)))
        #expect(sink.failures.withLock { $0 }.isEmpty)
    }

    @Test(arguments: TestDatabase.kinds) func aFailingWriteIsGivenUpOnAloneAndReported(database: TestDatabase) throws {
        let sink = try Sink(database.location("behind"))
        let behind = sink.writeBehind()
        // The second write repeats the first's key: all or none of it fails, the others land.
        sink.connection.withLock { _ in
            // Queued while the connection is held: the drain takes the first and waits, so the
            // failing one goes in one batch with the third.
            for n in [1, 1, 2] as [Int64] {
                behind.enqueue([("INSERT INTO sink (n, writer) VALUES (?, ?)", [.integer(n), .integer(n)]),
                                ("INSERT INTO sink (n, writer) VALUES (?, ?)", [.integer(n + 100), .integer(n)])])
            }
        }
        behind.flush()
        #expect(try sink.rows().compactMap { $0[0].int64 } == [1, 2, 101, 102])
        #expect(sink.failures.withLock { $0 }.count == 1)
    }
}
