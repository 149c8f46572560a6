import Foundation
import Testing
@testable import ParleyFlowTest

/// Cron schedules under `advance`: fired in time order among `wait` timers, every run in
/// the window (not just the latest), exactly at their minute.
@Suite struct ScheduleTests {
    @Test func schedulesFireInTimeOrderUnderAdvance() async throws {
        let harness = try TestFileHarness()
        defer { harness.remove() }
        let file = TestDiscovery.Found(file: "ticker.test.yaml", path: TestFileHarness.fixtures + "/schedules/ticker.test.yaml")
        let results = await harness.run([file])
        #expect(TextReport.text(for: results) == """
            ok    ticker.test.yaml: schedules fire in time order with other timers
            1 passed, 0 failed

            """)
    }
}
