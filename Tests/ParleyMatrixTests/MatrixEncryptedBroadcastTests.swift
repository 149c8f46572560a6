import Foundation
import ParleyBots
import ParleyCore
import ParleyTesting
import Testing
@testable import ParleyMatrix

/// A broadcast into new encrypted direct rooms, through the real broadcast runner (which sends
/// one recipient per call): each page's rooms are made and their keys shared before its
/// sends, so eight recipients cost one key claim and one to-device request, not eight.
@Suite(.enabled(if: TestSynapse.isConfigured)) struct MatrixEncryptedBroadcastTests {
    @Test func aBroadcastPageSharesItsRoomKeysInOneClaim() async throws {
        try await withTimeout("the broadcast", seconds: 180) {
            let botUser = try await TestHomeserver.register("news")
            let botLog = LogLines()
            let bot = try EncryptedTestDevice.transport(botUser, mode: .default, log: botLog)
            _ = try await bot.connect()
            let (inboxes, recipients) = try await EncryptedTestDevice.readers(8)
            let service = BroadcastService(store: try BroadcastStore(path: ":memory:"))
            var targets = BroadcastRecipients()
            try targets.append(targets: inboxes.keys.sorted().map { "user:\($0)" })
            let job = try service.create(bot: "news", origin: "test", message: try BroadcastMessage(text: "morning news"),
                                         recipients: targets).job
            let log = SynapseAccessLog()
            let mark = log.mark()
            let report = try await service.run(job.id, route: .transport(bot))
            #expect(report.sent == 8, "\(report.failureReasons) \(botLog.all)")
            for (user, inbox) in inboxes {
                #expect(await inbox.waitForText("morning news"), "\(user) read it")
            }
            if log.path != nil {
                #expect(log.requests(by: botUser.userID, since: mark, matching: "/keys/claim") == 1)
                #expect(log.requests(by: botUser.userID, since: mark, matching: "/sendToDevice/") == 1)
            } else {
                Issue.record("PARLEY_SYNAPSE_ACCESS_LOG is not set: the request counts are not checked")
            }
            await bot.disconnect()
            for transport in recipients { await transport.disconnect() }
        }
    }
}
