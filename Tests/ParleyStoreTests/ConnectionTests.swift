import Foundation
import Testing
@testable import ParleyStore

@Suite struct ConnectionTests {
    @Test func roundTripsEveryStorageClass() throws {
        let db = try Connection(path: ":memory:")
        try db.execute("CREATE TABLE t (a, b, c, d, e)")
        let values: [StoreValue] = [.null, .integer(-42), .real(1.5), .text("héllo 👋"), .blob(Data([0, 1, 255]))]
        try db.run("INSERT INTO t VALUES (?, ?, ?, ?, ?)", values)
        #expect(try db.rows("SELECT * FROM t") == [values])
    }

    @Test func aFileOpensWithItsDurability() throws {
        // Given to the connection: the process's setting is left alone (every connection other
        // tests open meanwhile would sync each commit).
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-durability-\(UUID().uuidString)").path
        let full = try Connection(path: folder + "/full.db", durability: .full)
        let normal = try Connection(path: folder + "/normal.db", durability: .normal)
        // PRAGMA synchronous: 1 is NORMAL, 2 is FULL; both in WAL mode.
        #expect(try full.scalar("PRAGMA synchronous") == .integer(2))
        #expect(try normal.scalar("PRAGMA synchronous") == .integer(1))
        #expect(try full.scalar("PRAGMA journal_mode") == .text("wal"))
    }

    @Test func everyCommitIsCounted() throws {
        let db = try Connection(path: ":memory:")
        try db.execute("CREATE TABLE t (x INTEGER)")
        let before = StoreStatistics.commits
        for value in 1...3 { try db.run("INSERT INTO t VALUES (?)", [.integer(Int64(value))]) }
        try db.transaction { for value in 4...6 { try db.run("INSERT INTO t VALUES (?)", [.integer(Int64(value))]) } }
        // Four commits here (three statements, one transaction); other tests may add theirs.
        #expect(StoreStatistics.commits - before >= 4)
    }

    @Test func transactionRollsBackWhenBodyThrows() throws {
        let db = try Connection(path: ":memory:")
        try db.execute("CREATE TABLE t (x INTEGER PRIMARY KEY)")
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try db.transaction {
                try db.run("INSERT INTO t VALUES (1)")
                throw Boom()
            }
        }
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(0))
    }

    @Test func constraintViolationIsReportedWithTheSQL() throws {
        let db = try Connection(path: ":memory:")
        try db.execute("CREATE TABLE t (x INTEGER PRIMARY KEY)")
        try db.run("INSERT INTO t VALUES (1)")
        do {
            try db.run("INSERT INTO t VALUES (1)")
            Issue.record("expected a constraint violation")
        } catch let error as StoreError {
            #expect(error.isConstraintViolation)
            #expect(error.sql == "INSERT INTO t VALUES (1)")
        }
    }

    @Test func migrationsApplyOnceAndPersistInAFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("parley-\(UUID()).db").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let migrations = Migrations(name: "test", steps: ["CREATE TABLE a (x)", "CREATE TABLE b (y)"])
        do {
            let db = try Connection(path: path)
            try migrations.apply(to: db)
            try db.run("INSERT INTO a VALUES (1)")
        }
        let db = try Connection(path: path)
        try migrations.apply(to: db)  // already applied: must not fail on CREATE TABLE
        #expect(try db.scalar("SELECT count(*) FROM a") == .integer(1))
        #expect(try db.scalar("PRAGMA journal_mode") == .text("wal"))
        let newer = Migrations(name: "test", steps: ["CREATE TABLE a (x)"])
        #expect(throws: StoreError.self) { try newer.apply(to: db) }
    }
}
