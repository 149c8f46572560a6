import Foundation
import ParleyCore
import ParleyHub
import Testing

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

    @Test func aPersistentHubRecognisesEveryResend() async throws {
        let fixture = try HubFixture(.sqlite, configuration: HubConfiguration(receiptWindow: 2))
        let (alice, messages, receipts) = try await Self.sendFour(on: fixture)
        #expect(try await alice.send(messages[0]) == receipts[0])
        try fixture.hub.close()
        let reopened = try fixture.reopen()
        #expect(try await reopened.connect(user: "alice").send(messages[0]) == receipts[0])
        #expect(try reopened.storedCount(of: messages[0].clientMessageID) == 1)
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
