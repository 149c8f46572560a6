import Foundation
@testable import ParleyHosting
import ParleyTesting
import Testing

/// The lock around `m.direct` of processes acting as one Matrix account: one holder at a
/// time, also between two transports of one process (each its own connection).
@Suite(.enabled(if: TestDatabase.postgresURL != nil, "no PostgreSQL: run scripts/postgres start"))
struct PostgresAccountDataLockTests {
    @Test func oneHolderAtATimeAndTheNextOnceItIsGivenBack() async throws {
        let url = try #require(TestDatabase.postgresURL)
        let first = PostgresAccountDataLock(location: url), second = PostgresAccountDataLock(location: url)
        let key = "m.direct @test-\(UUID().uuidString):localhost"
        try await first.acquire(key)
        #expect(try second.tryAcquire(key) == false)
        // Another key is free.
        #expect(try second.tryAcquire(key + "-other"))
        await first.release(key)
        try await withTimeout { try await second.acquire(key) }
        #expect(try first.tryAcquire(key) == false)
        await second.release(key)
        await second.release(key + "-other")
    }
}
