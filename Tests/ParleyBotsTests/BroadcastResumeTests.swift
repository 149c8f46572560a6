import Foundation
import ParleyTesting
import ParleyBots
import ParleyCore
import ParleyHub
import Testing

@Suite struct BroadcastResumeTests {
    /// The run stops mid-job after 700 sends — the in-flight ones reaching the hub unrecorded,
    /// or failing before the hub gets them; hub and store are closed and reopened from the one
    /// SQLite file; resuming finishes with every recipient holding exactly one message.
    @Test(arguments: CrashingTransport.Moment.allCases)
    func resumeAfterACrashSendsEachMessageOnce(crash: CrashingTransport.Moment) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.file("parley.db")
        let recipients = 2_000
        let jobID: String
        do {
            // Before delivery, one send at a time: the send the crash cancels is the one the run
            // waits for, so its outcome is collected — and must stay pending, not be "sent".
            let configuration = BroadcastConfiguration(concurrency: crash == .beforeDelivery ? 1 : 256, random: { 0.5 })
            let fixture = try BroadcastFixture(users: recipients, hubPath: database, storePath: database, configuration: configuration)
            var audience = BroadcastRecipients()
            try audience.append(targets: BroadcastFixture.targets(0..<recipients))
            jobID = try fixture.service.create(bot: "news", origin: "test", message: try BroadcastMessage(text: "Hi {{recipient.id}}"),
                                               recipients: audience).job.id
            let crashing = CrashingTransport(base: fixture.transport, after: 700, moment: crash)
            let service = fixture.service
            let task = Task { _ = try? await service.run(jobID, transport: crashing) }
            crashing.arm(task)
            await task.value
            let stopped = try #require(try fixture.store.job(jobID))
            #expect(stopped.state == .running)
            #expect(stopped.sent < 700 && stopped.pending > 1_300)
            try fixture.hub.close()
        }
        let reopened = try BroadcastFixture(users: recipients, hubPath: database, storePath: database, createUsers: false)
        #expect(try reopened.store.unfinishedJobs().map(\.id) == [jobID])
        // Before resuming, some recipients may hold a message the first run never recorded
        // (sent before the crash, outcome not yet written); after delivery, surely some do.
        let alreadyThere = try (0..<recipients).filter { try !reopened.messages(to: "u\($0)").isEmpty }.count
        let recorded = try #require(try reopened.store.job(jobID)).sent
        if crash == .afterDelivery { #expect(alreadyThere > recorded) } else { #expect(alreadyThere >= recorded) }

        let reports = try await reopened.service.runUnfinished { $0 == "news" ? reopened.transport : nil }
        #expect(reports.count == 1)
        #expect(reports.first?.sent == recipients && reports.first?.pending == 0)
        for index in 0..<recipients {
            let messages = try reopened.messages(to: "u\(index)")
            #expect(messages.count == 1, "u\(index) has \(messages.count) messages")
            #expect(messages.first?.payload["text"]?.stringValue == "Hi u\(index)")
        }
        #expect(try reopened.store.unfinishedJobs().isEmpty)
    }
}
