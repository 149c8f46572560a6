import Foundation
import ParleyTesting
import Testing
@testable import ParleyStore

/// `Connection.batch` on both databases: all or none, the rows each statement changed, and
/// inside a transaction part of it.
@Suite struct BatchTests {
    func table(_ database: TestDatabase) throws -> Connection {
        let db = try Connection(path: database.location("batch"))
        try db.execute("CREATE TABLE t (x BIGINT PRIMARY KEY, y TEXT)")
        return db
    }

    @Test(arguments: TestDatabase.kinds) func runsEveryStatementAndCountsTheirRows(database: TestDatabase) throws {
        let db = try table(database)
        let changed = try db.batch([("INSERT INTO t VALUES (?, ?), (?, ?)", [1, "a", 2, "b"]),
                                    ("UPDATE t SET y = ? WHERE x > ?", ["z", 0]),
                                    ("DELETE FROM t WHERE x = ?", [7])])
        #expect(changed == [2, 2, 0])
        #expect(try db.rows("SELECT x, y FROM t ORDER BY x") == [[1, "z"], [2, "z"]])
    }

    @Test(arguments: TestDatabase.kinds) func aFailingStatementUndoesTheOnesBefore(database: TestDatabase) throws {
        let db = try table(database)
        try db.run("INSERT INTO t VALUES (?, ?)", [1, "a"])
        #expect { try db.batch([("INSERT INTO t VALUES (?, ?)", [2, "b"]), ("INSERT INTO t VALUES (?, ?)", [1, "dup"]),
                                ("INSERT INTO t VALUES (?, ?)", [3, "c"])]) } throws: { ($0 as? StoreError)?.isConstraintViolation == true }
        #expect(try db.rows("SELECT x FROM t ORDER BY x") == [[1]])
        // The connection is usable after the failure.
        try db.batch([("INSERT INTO t VALUES (?, ?)", [4, "d"]), ("INSERT INTO t VALUES (?, ?)", [5, "e"])])
        #expect(try db.rows("SELECT x FROM t ORDER BY x") == [[1], [4], [5]])
    }

    @Test(arguments: TestDatabase.kinds) func insideATransactionItIsPartOfIt(database: TestDatabase) throws {
        let db = try table(database)
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try db.transaction {
                try db.batch([("INSERT INTO t VALUES (?, ?)", [1, "a"]), ("INSERT INTO t VALUES (?, ?)", [2, "b"])])
                throw Boom()
            }
        }
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(0))
    }
}
