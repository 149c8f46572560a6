import Foundation
import ParleyCore
import ParleyHub
import Testing
import ParleyTesting

/// A memory client's lone send goes straight to the transport when its outbox is idle;
/// anything but success falls back to the lanes, with the usual retries and order.
@Suite struct OutboxLoneSendTests {
    static func texts(_ setup: HubSetup) throws -> [String] {
        try setup.hub.messages(in: .person("alice"), seenBy: "bob").compactMap { $0.payload["text"]?.stringValue }
    }

    @Test func aTransientFailureIsRetriedAndALaterSendWaitsBehindIt() async throws {
        let setup = try HubSetup()
        let (alice, _) = try await setup.online("alice")
        setup.hub.failNextSends(1, with: ParleyError(.serverError, "try again"), from: "alice")
        let first = Task { try await alice.send(TextContent("first"), to: .person("bob")) }
        try await withTimeout { await setup.clock.waitForSleepers(1) }
        // The lane now holds the first message: the second goes the usual way, behind it.
        let second = Task { try await alice.send(TextContent("second"), to: .person("bob")) }
        try await withTimeout {
            while await alice.queuedSends < 2 { try Task.checkCancellation(); await Task.yield() }
        }
        #expect(try Self.texts(setup).isEmpty)
        await setup.clock.advance(by: .seconds(1))
        let sent = try await withTimeout { (try await first.value, try await second.value) }
        #expect(sent.0.seq < sent.1.seq)
        #expect(try Self.texts(setup) == ["first", "second"])
        await alice.close()
    }

    @Test func aPermanentFailureFailsAtOnceAndTheNextSendGoesOut() async throws {
        let setup = try HubSetup()
        let (alice, _) = try await setup.online("alice")
        setup.hub.failNextSends(1, with: ParleyError(.permissionDenied, "blocked"), from: "alice")
        await #expect(throws: ParleyError(.permissionDenied, "blocked")) {
            try await alice.send(TextContent("refused"), to: .person("bob"))
        }
        #expect(await alice.queuedSends == 0)
        #expect(setup.clock.sleeperCount == 0)
        _ = try await alice.send(TextContent("accepted"), to: .person("bob"))
        #expect(try Self.texts(setup) == ["accepted"])
        await alice.close()
    }

    @Test func aLostAcknowledgementIsResentOnce() async throws {
        let setup = try HubSetup()
        let (alice, _) = try await setup.online("alice")
        setup.hub.loseNextAcks(1, from: "alice")
        let sending = Task { try await alice.send(TextContent("once"), to: .person("bob")) }
        try await withTimeout { await setup.clock.waitForSleepers(1) }
        await setup.clock.advance(by: .seconds(1))
        let message = try await withTimeout { try await sending.value }
        #expect(try Self.texts(setup) == ["once"])
        #expect(try setup.hub.storedCount(of: message.clientMessageID) == 1)
        await alice.close()
    }

    @Test(arguments: [0, -3, 1, 2])
    func sendsGoOutInOrderWhateverTheYieldSpacing(submitsBetweenYields: Int) async throws {
        let setup = try HubSetup()
        let configuration = Outbox.Configuration(submitsBetweenYields: submitsBetweenYields)
        #expect(configuration.submitsBetweenYields == max(0, submitsBetweenYields))
        let outbox = Outbox(transport: try setup.hub.connect(user: "alice"), store: MemoryOutboxStore(), clock: setup.clock,
                            configuration: configuration)
        try await outbox.start()
        for index in 1...5 {
            let results = try await withTimeout { await outbox.submit([OutboxTests.message("m\(index)")]) }
            #expect(throws: Never.self) { try results.first?.get() }
        }
        #expect(try Self.texts(setup) == ["m1", "m2", "m3", "m4", "m5"])
        await outbox.stop()
    }
}
