import Foundation
import ParleyBots
import ParleyCore
import ParleyTesting
import ParleyStore
import Testing

/// On PostgreSQL a run writes its outcomes behind its back: it goes on sending while a batch
/// of outcomes waits for the database, and its report counts every one once written.
@Suite(.enabled(if: TestDatabase.postgresURL != nil, "no PostgreSQL: run scripts/postgres start"))
struct BroadcastOutcomesBehindTests {
    @Test func theRunSendsOnWhileItsOutcomesWaitForTheDatabase() async throws {
        let location = TestDatabase.postgres.location("outcomes")
        let fixture = try BroadcastFixture(users: 10, storePath: location,
                                           configuration: BroadcastConfiguration(concurrency: 1, recordBatch: 2, random: { 0.5 }))
        var audience = BroadcastRecipients()
        try audience.append(targets: BroadcastFixture.targets(0..<10))
        let id = try fixture.service.create(bot: "news", origin: "test", message: try BroadcastMessage(text: "Hi"), recipients: audience).job.id
        // Another connection holds the job's row: writing outcomes (which move its counters) waits.
        let blocker = RowBlocker(try Connection(path: location))
        try blocker.lock("SELECT id FROM broadcast_jobs WHERE id = '\(id)' FOR UPDATE")
        blocker.release(after: 60)  // at the latest: a run that waits for its writes ends the test too
        let service = fixture.service, transport = fixture.transport
        let run = Task { try await service.run(id, transport: transport) }
        // All ten are sent while the first outcomes (a batch of two) wait for the row.
        // Generous: the whole suite runs beside this on 2 cores.
        try await withTimeout("all ten sent while the outcomes wait", seconds: 30) {
            while try (0..<10).contains(where: { try fixture.messages(to: "u\($0)").isEmpty }) {
                try Task.checkCancellation()
                await Task.yield()
            }
        }
        blocker.release(after: 0)
        let report = try await withTimeout { try await run.value }
        #expect(report.sent == 10 && report.pending == 0)
        #expect(try fixture.store.job(id)?.sent == 10)
        #expect(try fixture.store.recipients(job: id).allSatisfy { if case .sent? = $0.outcome { true } else { false } })
        for index in 0..<10 { #expect(try fixture.messages(to: "u\(index)").count == 1) }
    }
}
