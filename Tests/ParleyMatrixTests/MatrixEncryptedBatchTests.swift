import Foundation
import ParleyCore
import ParleyTesting
import Testing
@testable import ParleyMatrix

/// A broadcast's batch into new encrypted direct rooms shares its keys in one pass: one claim
/// and one to-device request for all recipients, not some per recipient; and each recipient
/// gets one direct room (concurrent updates of `m.direct` used to lose rooms, so a later send
/// created another).
@Suite(.enabled(if: TestSynapse.isConfigured)) struct MatrixEncryptedBatchTests {
    @Test func aBatchSharesItsRoomKeysTogether() async throws {
        try await withTimeout("the batch", seconds: 90) {
            let botUser = try await TestHomeserver.register("bot")
            let botLog = LogLines()
            let bot = try EncryptedTestDevice.transport(botUser, mode: .default, log: botLog)
            _ = try await bot.connect()
            var inboxes: [String: Inbox] = [:]
            var recipients: [MatrixTransport] = []
            for _ in 0..<6 {
                let user = try await TestHomeserver.register("reader")
                let transport = try EncryptedTestDevice.transport(user, mode: .allow)
                inboxes[user.userID] = Inbox.start(try await transport.connect())
                recipients.append(transport)
            }
            let log = SynapseAccessLog()
            let mark = log.mark()
            let results = await bot.sendBatch(inboxes.keys.sorted().map {
                OutgoingEnvelope(channel: .person($0), payload: ["type": 1, "text": "news for you"])
            })
            #expect(results.allSatisfy { (try? $0.get()) != nil }, "\(botLog.all)")
            for (user, inbox) in inboxes {
                #expect(await inbox.waitForText("news for you"), "\(user) read it")
            }
            if log.path != nil {
                #expect(log.requests(by: botUser.userID, since: mark, matching: "/keys/claim") == 1)
                // The invites announce the recipients' device lists as changed: at most one more query.
                #expect((log.requests(by: botUser.userID, since: mark, matching: "/keys/query") ?? 0) <= 2)
                #expect(log.requests(by: botUser.userID, since: mark, matching: "/sendToDevice/") == 1)
            } else {
                Issue.record("PARLEY_SYNAPSE_ACCESS_LOG is not set: the request counts are not checked")
            }
            await bot.disconnect()
            for transport in recipients { await transport.disconnect() }
        }
    }
}
