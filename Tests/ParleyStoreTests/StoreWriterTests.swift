import Foundation
import ParleyTesting
import Synchronization
import Testing
@testable import ParleyStore

/// The one writer of a SQLite file: writes queued meanwhile share a transaction, one that
/// fails is undone alone, nobody is told before the COMMIT, a failed COMMIT fails them all,
/// and the writer checkpoints the log itself.
@Suite struct StoreWriterTests {
    /// A file with a table `t`, its writer, and a second connection that reads what committed.
    struct Store {
        let writer: StoreWriter
        let reader: Connection
        let path: String

        init(_ label: String) throws {
            path = TestDatabase.sqlite.location(label)
            let migrations = Migrations(name: "writer-test", steps: [
                """
                CREATE TABLE t (x INTEGER PRIMARY KEY, y TEXT);
                CREATE TABLE parent (id INTEGER PRIMARY KEY);
                CREATE TABLE child (id INTEGER PRIMARY KEY,
                                    parent INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);
                """,
            ])
            writer = StoreWriter(connection: try migrations.open(path), label: "test-writer")
            reader = try Connection(path: path)
        }

        func committed() throws -> [Int] { try reader.rows("SELECT x FROM t ORDER BY x").compactMap { $0[0].int } }
    }

    @Test func writesQueuedDuringACommitShareTheNextTransaction() async throws {
        let store = try Store("group")
        let gate = WriterGate()
        gate.hold(store.writer)
        let before = store.writer.batches.transactions
        let told = Mutex<[Int]>([])
        let allTold = DispatchSemaphore(value: 0)
        for x in 1...200 {
            store.writer.submit({ try $0.run("INSERT INTO t (x, y) VALUES (?, ?)", [.integer(Int64(x)), .text("v")]) }, done: { result in
                guard case .success = result else { return }
                if told.withLock({ $0.append(x); return $0.count }) == 200 { allTold.signal() }
            })
        }
        gate.release()
        #expect(allTold.wait(timeout: .now() + 10) == .success)
        store.writer.flush()
        #expect(try store.committed() == Array(1...200))
        #expect(told.withLock { $0 } == Array(1...200), "told in the order queued")
        // The held batch, then the 200 writes together (and the flush's own).
        #expect(store.writer.batches.transactions - before <= 3)
    }

    @Test func aFailingWriteIsUndoneAloneAndTheOthersCommit() throws {
        let store = try Store("alone")
        try store.writer.perform { try $0.run("INSERT INTO t (x, y) VALUES (1, 'first')") }
        let gate = WriterGate()
        gate.hold(store.writer)
        let outcomes = Mutex<[Int: Bool]>([:])
        for x in [2, 1, 3] {
            store.writer.submit({ connection in
                try connection.run("INSERT INTO t (x, y) VALUES (?, 'x')", [.integer(Int64(x) + 100)])
                try connection.run("INSERT INTO t (x, y) VALUES (?, 'x')", [.integer(Int64(x))])
            }, done: { result in outcomes.withLock { $0[x] = (try? result.get()) != nil } })
        }
        gate.release()
        store.writer.flush()
        #expect(outcomes.withLock { $0 } == [2: true, 1: false, 3: true])
        // The failed write's first statement (101) is undone with it.
        #expect(try store.committed() == [1, 2, 3, 102, 103])
    }

    @Test func nobodyIsToldBeforeTheCommit() throws {
        let store = try Store("told")
        let seen = Mutex<[Int]?>(nil)
        let done = DispatchSemaphore(value: 0)
        store.writer.submit({ try $0.run("INSERT INTO t (x, y) VALUES (7, 'v')") }, done: { _ in
            seen.withLock { $0 = try? store.committed() }
            done.signal()
        })
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(seen.withLock { $0 } == [7], "another connection sees the row when the writer tells")
    }

    @Test func aFailedCommitFailsEveryWriteOfTheBatchAndStoresNothing() throws {
        let store = try Store("commit")
        let gate = WriterGate()
        gate.hold(store.writer)
        let results = Mutex<[Bool]>([])
        store.writer.submit({ try $0.run("INSERT INTO t (x, y) VALUES (1, 'v')") },
                            done: { result in results.withLock { $0.append((try? result.get()) != nil) } })
        // A deferred foreign key: the statement passes, the COMMIT fails.
        store.writer.submit({ try $0.run("INSERT INTO child (id, parent) VALUES (1, 99)") },
                            done: { result in results.withLock { $0.append((try? result.get()) != nil) } })
        gate.release()
        store.writer.flush()
        #expect(results.withLock { $0 } == [false, false])
        #expect(try store.committed() == [])
        // The writer goes on after it.
        try store.writer.perform { try $0.run("INSERT INTO t (x, y) VALUES (2, 'v')") }
        #expect(try store.committed() == [2])
    }

    @Test func anAsyncWriterSuspendsUntilTheCommitAndGetsItsResult() async throws {
        let store = try Store("async")
        let changed = try await store.writer.write { connection -> Int in
            try connection.run("INSERT INTO t (x, y) VALUES (1, 'a'), (2, 'b')")
            return connection.changes
        }
        #expect(changed == 2)
        #expect(try store.committed() == [1, 2])
        await #expect(throws: StoreError.self) {
            try await store.writer.write { try $0.run("INSERT INTO t (x, y) VALUES (1, 'again')") }
        }
    }

    @Test func performFromTheWritersOwnThreadRunsAtOnce() throws {
        let store = try Store("reentrant")
        let done = DispatchSemaphore(value: 0)
        store.writer.submit({ _ in }, done: { _ in
            // A `done` waiting for the writer would wait for itself.
            try? store.writer.perform { try $0.run("INSERT INTO t (x, y) VALUES (5, 'v')") }
            done.signal()
        })
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(try store.committed() == [5])
    }

    @Test func theWriterCheckpointsTheLogItself() throws {
        let store = try Store("checkpoint")
        let page = String(repeating: "x", count: 4_000)
        // About 12,000 pages in all; without checkpoints the log would hold them all.
        for round in 0..<60 {
            try store.writer.perform { connection in
                for row in 0..<200 {
                    try connection.run("INSERT INTO t (x, y) VALUES (?, ?)", [.integer(Int64(round * 200 + row)), .text(page)])
                }
            }
        }
        let log = (try FileManager.default.attributesOfItem(atPath: store.path + "-wal")[.size] as? Int) ?? 0
        #expect(log < 16 * 1_024 * 1_024, "the log is \(log) bytes")
        #expect(try store.reader.scalar("SELECT COUNT(*) FROM t")?.int == 12_000)
    }
}
