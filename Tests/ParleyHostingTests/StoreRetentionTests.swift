import Foundation
import ParleyBots
import ParleyCore
import ParleyHosting
import Synchronization
import Testing
import ParleyTesting

/// The periodic clean-up of `storage.retention`: at start and then every interval, on the
/// host's clock, each store asked for records older than now minus the retention; a store
/// that fails is logged and does not stop the others.
@Suite struct StoreRetentionTests {
    struct Broken: Error {}

    @Test func prunesAtStartAndEveryIntervalWithTheRightCutoff() async throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_800_000_000))
        let cutoffs = Mutex<[Date]>([])
        let lines = Mutex<[String]>([])
        let logger = BotLogger(level: .info, sink: { line in lines.withLock { $0.append(line) } })
        let retention = StoreRetention(retention: .seconds(86_400), interval: .seconds(3600), stores: [
            (name: "broken", prune: { _ in throw Broken() }),
            (name: "engine", prune: { cutoff in cutoffs.withLock { $0.append(cutoff) }; return 3 }),
        ])
        let task = Task { await retention.run(clock: clock, logger: logger) }
        try await withTimeout { await clock.waitForSleepers(1) }
        await clock.advance(by: .seconds(3600))
        try await withTimeout { await clock.waitForSleepers(1) }
        task.cancel()
        await task.value
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(cutoffs.withLock { $0 } == [start.addingTimeInterval(-86_400), start.addingTimeInterval(3600 - 86_400)])
        let logged = lines.withLock { $0 }
        #expect(logged.filter { $0.contains("retention clean-up failed") && $0.contains("broken") }.count == 2)
        #expect(logged.filter { $0.contains("old records deleted") && $0.contains("engine=3") }.count == 2)
    }
}
