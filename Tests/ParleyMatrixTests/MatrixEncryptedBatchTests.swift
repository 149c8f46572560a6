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
        try await withTimeout("the batch", seconds: 180) {
            let botUser = try await TestHomeserver.register("bot")
            let botLog = LogLines()
            let bot = try EncryptedTestDevice.transport(botUser, mode: .default, log: botLog)
            _ = try await bot.connect()
            let (inboxes, recipients) = try await EncryptedTestDevice.readers(6)
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

    /// The outbox sends to many rooms at once, one room per call: the keys of the rooms whose
    /// sends meet while a share is in flight go out together (here: eight rooms, whose
    /// direct rooms exist already, sent to at once cost at most three claims, not eight).
    @Test func concurrentSendsShareTheirRoomKeysTogether() async throws {
        try await withTimeout("the concurrent sends", seconds: 180) {
            let botUser = try await TestHomeserver.register("bot")
            let botLog = LogLines()
            let bot = try EncryptedTestDevice.transport(botUser, mode: .default, log: botLog)
            _ = try await bot.connect()
            let (inboxes, recipients) = try await EncryptedTestDevice.readers(8)
            for user in inboxes.keys { _ = try await bot.roomID(for: .person(user), create: true) }
            let log = SynapseAccessLog()
            let mark = log.mark()
            let sent = await withTaskGroup(of: Bool.self) { group in
                for user in inboxes.keys {
                    group.addTask {
                        let message = OutgoingEnvelope(channel: .person(user), payload: ["type": 1, "text": "together"])
                        return (try? await bot.send(message)) != nil
                    }
                }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(sent == 8, "\(botLog.all)")
            for (user, inbox) in inboxes {
                #expect(await inbox.waitForText("together"), "\(user) read it")
            }
            if log.path != nil {
                let claims = log.requests(by: botUser.userID, since: mark, matching: "/keys/claim") ?? 0
                #expect((1...3).contains(claims), "\(claims) claims for 8 rooms")
            } else {
                Issue.record("PARLEY_SYNAPSE_ACCESS_LOG is not set: the request counts are not checked")
            }
            await bot.disconnect()
            for transport in recipients { await transport.disconnect() }
        }
    }
}
