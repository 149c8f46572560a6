import Foundation
@testable import ParleyBots
@testable import ParleyCore
@testable import ParleyMatrix
@testable import ParleyMatrixCrypto
@testable import ParleyStore
import ParleyTesting
import Testing

/// Every store that runs on SQLite and PostgreSQL defines its tables once per dialect (SQLite's
/// steps as the file grew, PostgreSQL's created at once): both must end with the same tables and
/// columns, or a feature works on one and fails, or loses data, on the other.
@Suite struct StoreSchemaParityTests {
    /// The stores with both dialects.
    static let stores: [Migrations] = [
        DatabaseBotStore.migrations, BroadcastStore.migrations, SchedulerStore.migrations,
        DatabaseMessageStore.migrations, DatabaseOutboxStore.migrations, MatrixStore.migrations,
        MatrixCryptoStore.migrations,
    ]

    /// Where the dialects differ on purpose (`table.column`), each marked in its store's steps:
    /// PostgreSQL has no rowid, so tables ordered by it keep one as a column; SQLite files may
    /// hold the access token an older Parley kept, which the Matrix store erases at start.
    static let postgresOnly: Set<String> = ["engine_tickets.rowid", "matrix_seen.rowid", "crypto_olm_sessions.rowid"]
    static let sqliteOnly: Set<String> = ["matrix_session.access_token"]

    @Test(arguments: stores.map(\.name)) func bothDialectsHaveTheSameTablesAndColumns(store name: String) throws {
        guard TestDatabase.postgresURL != nil else {
            print("StoreSchemaParityTests: skipped, no PostgreSQL (set \(TestDatabase.environmentKey))")
            return
        }
        let migrations = try #require(Self.stores.first { $0.name == name })
        let sqlite = try migrations.open(":memory:")
        let postgres = try migrations.open(TestDatabase.postgres.location(name))
        let sqliteColumns = try Set(sqlite.rows("""
            SELECT m.name || '.' || c.name FROM sqlite_master m, pragma_table_info(m.name) c
            WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND m.name <> 'parley_migrations'
            """).compactMap { $0[0].string })
        let postgresColumns = try Set(postgres.rows("""
            SELECT table_name || '.' || column_name FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name <> 'parley_migrations'
            """).compactMap { $0[0].string })
        #expect(!sqliteColumns.isEmpty)
        let onlySQLite = sqliteColumns.subtracting(postgresColumns).subtracting(Self.sqliteOnly).sorted()
        let onlyPostgres = postgresColumns.subtracting(sqliteColumns).subtracting(Self.postgresOnly).sorted()
        #expect(onlySQLite.isEmpty, "\(name): only on SQLite: \(onlySQLite)")
        #expect(onlyPostgres.isEmpty, "\(name): only on PostgreSQL: \(onlyPostgres)")
    }
}
