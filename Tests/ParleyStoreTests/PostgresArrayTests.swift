import Foundation
import ParleyTesting
import Testing
@testable import ParleyStore

/// Array parameters (`PostgresArray`) on the test PostgreSQL: every value comes back as it went
/// in, however it is spelled; skipped without one.
@Suite(.enabled(if: TestDatabase.postgresURL != nil, "no PostgreSQL: run scripts/postgres start"))
struct PostgresArrayTests {
    @Test func everyValueComesBackThroughUnnest() throws {
        let db = try Connection(path: TestDatabase.postgres.location("arrays"))
        let texts: [StoreValue] = [.text("plain"), .text("NULL"), .null, .text(""), .text("a,b"), .text("{x}"), .text(#"say "hi""#),
                                    .text(#"back\slash\"#), .text(" spaced "), .text("héllo 👋\nnext line"), .text("$abc:localhost")]
        let numbers: [StoreValue] = (0..<texts.count).map { .integer(Int64($0) * -3_000_000_000) }
        let rows = try db.rows("SELECT v.n, v.t FROM unnest(CAST(? AS BIGINT[]), CAST(? AS TEXT[])) WITH ORDINALITY AS v(n, t, i) ORDER BY v.i",
                               [PostgresArray.literal(numbers), PostgresArray.literal(texts)])
        #expect(rows == zip(numbers, texts).map { [$0, $1] })
        let reals: [StoreValue] = [.real(1.5), .real(-0.25), .null]
        #expect(try db.rows("SELECT unnest(CAST(? AS DOUBLE PRECISION[]))", [PostgresArray.literal(reals)]) == reals.map { [$0] })
        let blobs: [StoreValue] = [.blob(Data([0, 1, 255, 92, 34])), .null]
        #expect(try db.rows("SELECT unnest(CAST(? AS BYTEA[]))", [PostgresArray.literal(blobs)]) == blobs.map { [$0] })
        #expect(try db.rows("SELECT unnest(CAST(? AS TEXT[]))", [PostgresArray.literal([])]).isEmpty)
    }
}
