import Foundation
import ParleyCore
import ParleyHub
import Testing
import ParleyTesting

@Suite struct HubRetentionTests {
    @Test func anInMemoryHubKeepsTheNewestMessagesOverAllChannels() async throws {
        let fixture = try HubFixture(.memory, configuration: HubConfiguration(memoryHistoryLimit: 8))
        let alice = try fixture.hub.connect(user: "alice")
        // Eviction runs an eighth (at least one) over the limit: the 10th message brings the
        // hub back to the newest 8, the oldest first (both of bob's first and carol's).
        for index in 1...5 {
            _ = try await alice.send(OutgoingEnvelope(channel: .person("bob"), payload: text("b\(index)")))
            _ = try await alice.send(OutgoingEnvelope(channel: .person("carol"), payload: text("c\(index)")))
        }
        #expect(try fixture.hub.messages(in: .person("bob"), seenBy: "alice").map(\.text) == ["b2", "b3", "b4", "b5"])
        #expect(try fixture.hub.messages(in: .person("carol"), seenBy: "alice").map(\.text) == ["c2", "c3", "c4", "c5"])
        // Seqs go on; catch-up starts at the oldest message kept.
        #expect(fixture.hub.lastSeq(in: .person("bob"), seenBy: "alice") == 5)
        let (_, bob) = try await fixture.online("bob")
        #expect(try await bob.waitForMessages(4).map(\.seq) == [2, 3, 4, 5])
    }

    @Test func resendsWithinTheReceiptWindowAnswerTheFirstReceipt() async throws {
        let fixture = try HubFixture(.memory, configuration: HubConfiguration(receiptWindow: 2))
        let (alice, messages, receipts) = try await Self.sendFour(on: fixture)
        // The window holds the newest two: the last resend is recognised, the first one is
        // past the window and stored again.
        #expect(try await alice.send(messages[3]) == receipts[3])
        #expect(try fixture.hub.storedCount(of: messages[3].clientMessageID) == 1)
        #expect(try await alice.send(messages[0]).seq == 5)
        #expect(try fixture.hub.storedCount(of: messages[0].clientMessageID) == 2)
    }

    @Test func theReceiptWindowHoldsExactlyTheNewestReceipts() async throws {
        let fixture = try HubFixture(.memory, configuration: HubConfiguration(receiptWindow: 3))
        let alice = try fixture.hub.connect(user: "alice")
        let messages = (1...10).map { OutgoingEnvelope(channel: .person("bob"), payload: text("m\($0)")) }
        var receipts: [SendReceipt] = []
        for message in messages { receipts.append(try await alice.send(message)) }
        // The 8th is among the newest three and answers its receipt; the 7th is just past.
        #expect(try await alice.send(messages[7]) == receipts[7])
        #expect(try await alice.send(messages[6]).seq == 11)
        // That resend took a place in the window: the 8th is now past it, the 10th is not.
        #expect(try await alice.send(messages[9]) == receipts[9])
        #expect(try await alice.send(messages[7]).seq == 12)
    }

    @Test func aPersistentHubKeepsTheWindowInMemoryAndFindsOlderResendsInItsFile() async throws {
        let fixture = try HubFixture(.sqlite, configuration: HubConfiguration(receiptWindow: 2))
        let (alice, messages, receipts) = try await Self.sendFour(on: fixture)
        #expect(fixture.hub.receiptsInMemory == 2)
        var first = messages[0]
        first.isResend = true
        #expect(try await alice.send(first) == receipts[0])
        var last = messages[3]
        last.isResend = true
        let batch = await alice.sendBatch([first, last, OutgoingEnvelope(channel: .person("bob"), payload: text("m5"))])
        #expect(try batch.map { try $0.get() }.prefix(2) == [receipts[0], receipts[3]])
        #expect(try batch[2].get().seq == 5)
        try fixture.hub.close()
        // Reopened, it loads the newest receipts only, and still answers the oldest resend.
        let reopened = try fixture.reopen()
        #expect(reopened.receiptsInMemory == 2)
        #expect(try await reopened.connect(user: "alice").send(first) == receipts[0])
        #expect(try reopened.storedCount(of: messages[0].clientMessageID) == 1)
        // Unmarked, a send past the window is a new message (as in memory).
        #expect(try await reopened.connect(user: "alice").send(messages[1]).seq == 6)
    }

    @Test func anOutboxRetryOfAMessageStoredPastTheWindowIsRecognised() async throws {
        let fixture = try HubFixture(.sqlite, configuration: HubConfiguration(receiptWindow: 1))
        let clock = ManualClock()
        let outbox = Outbox(transport: try fixture.hub.connect(user: "alice"), store: MemoryOutboxStore(), clock: clock,
                            configuration: Outbox.Configuration(random: { 0.5 }))
        try await outbox.start()
        // Stored, but the answer is lost: the outbox retries after a backoff.
        fixture.hub.loseNextAcks(1, from: "alice")
        let item = OutboxItem(operation: .message(OutgoingEnvelope(channel: .person("bob"), payload: text("once"))))
        let result = Task { await outbox.submit([item]) }
        try await withTimeout { await clock.waitForSleepers(1) }
        // Meanwhile other messages push its receipt out of the memory window.
        let carol = try fixture.hub.connect(user: "carol")
        for index in 1...2 { _ = try await carol.send(OutgoingEnvelope(channel: .person("bob"), payload: text("other \(index)"))) }
        await clock.advance(by: .seconds(60))
        let results = try await withTimeout { await result.value }
        guard case .sent(let receipt) = try results[0].get() else { Issue.record("not sent: \(results)"); return }
        #expect(receipt.seq == 1)
        #expect(try fixture.hub.storedCount(of: item.id) == 1)
        await outbox.stop()
    }

    /// Alice sends four texts to bob; her transport, the messages and their receipts.
    private static func sendFour(on fixture: HubFixture) async throws -> (HubTransport, [OutgoingEnvelope], [SendReceipt]) {
        let alice = try fixture.hub.connect(user: "alice")
        let messages = (1...4).map { OutgoingEnvelope(channel: .person("bob"), payload: text("m\($0)")) }
        var receipts: [SendReceipt] = []
        for message in messages { receipts.append(try await alice.send(message)) }
        return (alice, messages, receipts)
    }
}
