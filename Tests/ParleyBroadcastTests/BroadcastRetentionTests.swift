import Foundation
import ParleyBots
import ParleyCore
import Testing

/// `storage.retention` for broadcasts: a job finished before the cutoff goes with its
/// recipients; a recent one stays, and a running one stays however old.
@Suite struct BroadcastRetentionTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func finishedJobsOlderThanTheCutoffGoWithTheirRecipients() throws {
        let store = try BroadcastStore(path: ":memory:")
        let recipients: [Channel] = [.person("a"), .person("b")]
        for (id, day) in [("old", 0.0), ("recent", 40.0), ("running", 0.0)] {
            let created = try store.create(id: id, bot: "news", origin: "test", message: try BroadcastMessage(text: "hi"), ratePerSecond: nil,
                                           recipients: recipients, now: Self.start.addingTimeInterval(day * 86_400))
            #expect(created)
            if id != "running" { try store.finish(job: id, now: Self.start.addingTimeInterval(day * 86_400 + 60)) }
        }
        #expect(try store.prune(before: Self.start.addingTimeInterval(30 * 86_400)) == 1)
        #expect(try store.job("old") == nil)
        #expect(try store.recipients(job: "old").isEmpty)
        #expect(try store.job("recent")?.state == .finished)
        #expect(try store.recipients(job: "recent").count == 2)
        #expect(try store.job("running")?.state == .running)
        #expect(try store.recipients(job: "running").count == 2)
        // The id is free again: the same id starts a new job.
        #expect(try store.create(id: "old", bot: "news", origin: "test", message: try BroadcastMessage(text: "hi"), ratePerSecond: nil,
                                 recipients: recipients, now: Self.start.addingTimeInterval(31 * 86_400)))
    }
}
