import Foundation
@testable import ParleyBots
@testable import ParleyCLI
@testable import ParleyHosting
import Testing

/// `parley cluster` lists, under each running job, what each process sent and holds of it.
struct ClusterDescribeTests {
    @Test func eachJobShowsItsRecipientsPerProcess() throws {
        let status = ClusterStatus(
            processes: [ClusterStatus.Process(id: "vm:42:abcd1234", host: "vm", pid: 42, upSeconds: 60, seenSecondsAgo: 0.5, bots: ["support"])],
            bots: [ClusterStatus.Bot(id: "support", holder: "vm:42:abcd1234", generation: 3, heldForSeconds: 60, renewedSecondsAgo: 0.5,
                                     expiresInSeconds: 4.5)])
        let job = BroadcastJob(id: "big", bot: "support", origin: "cli", message: try BroadcastMessage(text: "Hi"), ratePerSecond: nil,
                               state: .running, created: Date(timeIntervalSince1970: 0), finished: nil, total: 10, sent: 4, failed: 0,
                               audience: nil, optedOut: 0)
        let lines = ClusterCommand.describe(status, jobs: [job], senders: ["big": [
            BroadcastSender(process: "vm:42", done: 3, holding: 2), BroadcastSender(process: "vm:7", done: 1, holding: 0)]])
        #expect(lines.contains { $0.hasPrefix("  big") && $0.hasSuffix("bot run by vm:42:abcd1234") })
        #expect(lines.contains("    vm:42:abcd1234: 3 done, 2 claimed"))
        #expect(lines.contains("    vm:7 (gone): 1 done, 0 claimed"))
    }
}
