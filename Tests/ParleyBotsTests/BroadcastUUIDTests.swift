import Foundation
import Testing
import ParleyCore
@testable import ParleyBots

@Suite struct BroadcastUUIDTests {
    @Test func messageNumbersDependOnJobAndRecipientOnly() {
        let first = BroadcastUUID.message(job: "j1", target: "user:alice")
        #expect(first == BroadcastUUID.message(job: "j1", target: "user:alice"))
        #expect(first != BroadcastUUID.message(job: "j2", target: "user:alice"))
        #expect(first != BroadcastUUID.message(job: "j1", target: "user:bob"))
        // The separator keeps "a"+"bc" and "ab"+"c" apart.
        #expect(BroadcastUUID.message(job: "a", target: "bc") != BroadcastUUID.message(job: "ab", target: "c"))
        let ids = Set((0..<10_000).map { BroadcastUUID.message(job: "j1", target: "user:u\($0)") })
        #expect(ids.count == 10_000)
    }

    @Test func scheduledJobIDsDependOnTheRun() {
        let nine = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(BroadcastUUID.scheduledJob(bot: "news", schedule: "morning", fire: nine)
                == BroadcastUUID.scheduledJob(bot: "news", schedule: "morning", fire: nine.addingTimeInterval(0.4)))
        #expect(BroadcastUUID.scheduledJob(bot: "news", schedule: "morning", fire: nine)
                != BroadcastUUID.scheduledJob(bot: "news", schedule: "morning", fire: nine.addingTimeInterval(86_400)))
    }
}
