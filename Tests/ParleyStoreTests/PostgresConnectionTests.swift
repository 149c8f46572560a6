import Foundation
import ParleyTesting
import Testing
@testable import ParleyStore

/// The connection on the test PostgreSQL (`scripts/postgres start`); skipped without one.
@Suite(.enabled(if: TestDatabase.postgresURL != nil, "no PostgreSQL: run scripts/postgres start"))
struct PostgresConnectionTests {
    @Test func roundTripsEveryValueThroughTypedColumns() throws {
        let db = try Connection(path: TestDatabase.postgres.location("values"))
        try db.execute("CREATE TABLE t (a BIGINT, b BIGINT, c DOUBLE PRECISION, d TEXT, e BYTEA)")
        let values: [StoreValue] = [.null, .integer(-42), .real(1.5), .text("héllo 👋 'q' ?"), .blob(Data([0, 1, 255, 92, 120]))]
        try db.run("INSERT INTO t VALUES (?, ?, ?, ?, ?)", values)
        #expect(try db.rows("SELECT * FROM t") == [values])
        #expect(try db.scalar("SELECT sum(b) FROM t") == .integer(-42))
        #expect(try db.scalar("SELECT count(*) FROM t WHERE e = ?", [.blob(Data([0, 1, 255, 92, 120]))]) == .integer(1))
    }

    @Test func changesCountsRowsOfTheLastStatement() throws {
        let db = try Connection(path: TestDatabase.postgres.location("changes"))
        try db.execute("CREATE TABLE t (x BIGINT PRIMARY KEY)")
        try db.run("INSERT OR IGNORE INTO t VALUES (?)", [1])
        #expect(db.changes == 1)
        try db.run("INSERT OR IGNORE INTO t VALUES (?)", [1])
        #expect(db.changes == 0)
        try db.run("INSERT INTO t VALUES (2), (3)")
        try db.run("DELETE FROM t WHERE x > ?", [1])
        #expect(db.changes == 2)
    }

    @Test func transactionRollsBackWhenBodyThrows() throws {
        let db = try Connection(path: TestDatabase.postgres.location("rollback"))
        try db.execute("CREATE TABLE t (x BIGINT PRIMARY KEY)")
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try db.transaction {
                try db.run("INSERT INTO t VALUES (?)", [1])
                throw Boom()
            }
        }
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(0))
    }

    @Test func constraintViolationKeepsItsStateAndSQL() throws {
        let db = try Connection(path: TestDatabase.postgres.location("unique"))
        try db.execute("CREATE TABLE t (x BIGINT PRIMARY KEY)")
        try db.run("INSERT INTO t VALUES (?)", [1])
        do {
            try db.run("INSERT INTO t VALUES (?)", [1])
            Issue.record("expected a constraint violation")
        } catch let error as StoreError {
            #expect(error.isConstraintViolation)
            #expect(error.sqlState == "23505")
            #expect(error.sql == "INSERT INTO t VALUES (?)")
        }
    }

    @Test func schemasKeepStoresApartAndMigrationsRunOnce() throws {
        let first = TestDatabase.postgres.location("a"), second = TestDatabase.postgres.location("b")
        let migrations = Migrations(name: "test", steps: ["CREATE TABLE a (x)"], postgresSteps: ["CREATE TABLE a (x BIGINT)", "CREATE TABLE b (y TEXT)"])
        for location in [first, second] {
            let db = try migrations.open(location)
            try db.run("INSERT INTO a VALUES (?)", [7])
        }
        let again = try migrations.open(first)  // already applied: must not fail on CREATE TABLE
        #expect(try again.scalar("SELECT count(*) FROM a") == .integer(1))
        #expect(try again.scalar("SELECT version FROM parley_migrations WHERE name = 'test'") == .integer(2))
        let sqliteOnly = Migrations(name: "hub", steps: ["CREATE TABLE h (x)"])
        #expect { try sqliteOnly.open(first) } throws: { "\($0)".contains("SQLite only") }
    }

    @Test func aLostConnectionIsRevivedAndItsStatementsPreparedAgain() throws {
        let location = TestDatabase.postgres.location("revive")
        let db = try Connection(path: location)
        try db.execute("CREATE TABLE t (x BIGINT)")
        try db.run("INSERT INTO t VALUES (?)", [1])
        let pid = try #require(try db.scalar("SELECT pg_backend_pid()")?.int)
        let killer = try Connection(path: location)
        try killer.run("SELECT pg_terminate_backend(?)", [.integer(Int64(pid))])
        // The first use after the kill finds the connection gone and reports it as unavailable;
        // a use after the backoff reconnects and prepares the cached statement again.
        var result: StoreValue?
        for _ in 0..<50 where result == nil {
            do {
                try db.run("INSERT INTO t VALUES (?)", [2])
                result = try db.scalar("SELECT count(*) FROM t")
            } catch let error as StoreError where error.isUnavailable {
                Thread.sleep(forTimeInterval: 0.05)  // the backoff is real time, not a test clock
            }
        }
        #expect(result == .integer(2))
        #expect(try db.scalar("SELECT pg_backend_pid()")?.int != pid)
    }

    @Test func anUnreachableServerIsAnUnavailableErrorWithoutThePassword() {
        #expect {
            try Connection(path: "postgres://parley:hunter2@127.0.0.1:1/parley#x")
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.isUnavailable && !error.description.contains("hunter2")
        }
    }
}
