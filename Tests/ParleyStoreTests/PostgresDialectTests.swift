import Testing
@testable import ParleyStore

@Suite struct PostgresDialectTests {
    @Test func numbersParametersInOrderAndKeepsExplicitNumbers() throws {
        #expect(try PostgresDialect.translate("SELECT a FROM t WHERE b = ? AND c = ?")
                == .init(sql: "SELECT a FROM t WHERE b = $1 AND c = $2", parameterCount: 2))
        #expect(try PostgresDialect.translate("DELETE FROM t WHERE r = ?1 AND x < (SELECT x FROM t WHERE r = ?1 OFFSET ?2)")
                == .init(sql: "DELETE FROM t WHERE r = $1 AND x < (SELECT x FROM t WHERE r = $1 OFFSET $2)", parameterCount: 2))
    }

    @Test func leavesQuestionMarksInQuotesAlone() throws {
        #expect(try PostgresDialect.translate("SELECT 'why?', \"odd?name\" FROM t WHERE a = ?")
                == .init(sql: "SELECT 'why?', \"odd?name\" FROM t WHERE a = $1", parameterCount: 1))
    }

    @Test func insertOrIgnoreBecomesOnConflictDoNothing() throws {
        #expect(try PostgresDialect.translate("INSERT OR IGNORE INTO t (a) VALUES (?);")
                == .init(sql: "INSERT INTO t (a) VALUES ($1) ON CONFLICT DO NOTHING", parameterCount: 1))
        #expect(try PostgresDialect.translate("insert or ignore into t (a) values (?) RETURNING a").sql
                == "INSERT INTO t (a) values ($1) ON CONFLICT DO NOTHING RETURNING a")
    }

    @Test func insertOrReplaceIsRefusedNamingTheStatement() {
        #expect { try PostgresDialect.translate("INSERT OR REPLACE INTO t VALUES (?)") } throws: { error in
            (error as? StoreError)?.sql == "INSERT OR REPLACE INTO t VALUES (?)"
        }
    }

    @Test func schemaNamesAreSafeIdentifiers() {
        #expect(StoreLocation.schemaName("Support-Bot.2") == "support_bot_2")
        #expect(StoreLocation.schemaName("@bot:localhost") == "_bot_localhost")
        #expect(StoreLocation.schemaName("9lives") == "p_9lives")
        #expect(StoreLocation.schemaName(String(repeating: "a", count: 100)).utf8.count == 63)
    }

    @Test func locationsParseAndHideThePassword() {
        #expect(StoreLocation("postgres://u:secret@h:5/db#parley_x") == .postgres(url: "postgres://u:secret@h:5/db", schema: "parley_x"))
        #expect(StoreLocation("postgresql://h/db") == .postgres(url: "postgresql://h/db", schema: "parley"))
        #expect(StoreLocation(".parley/parley.db") == .sqlite(path: ".parley/parley.db"))
        #expect(StoreLocation.withoutPassword("postgres://u:secret@h:5/db") == "postgres://u:***@h:5/db")
        #expect(!StoreLocation("postgres://u:secret@h:5/db#s").shown.contains("secret"))
    }
}
