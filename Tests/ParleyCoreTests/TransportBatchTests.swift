import Foundation
import Testing
@testable import ParleyCore
import ParleyHub
import ParleyTesting

/// A real hub transport seen only through `send`, so `Transport.sendEachInOrder` is what
/// runs (the hub has its own batch).
struct SendOnlyTransport: ForwardingTransport {
    let base: any Transport
    func send(_ message: OutgoingEnvelope) async throws -> SendReceipt { try await base.send(message) }
    func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] { await sendEachInOrder(messages) }
}

@Suite struct TransportBatchTests {
    static func envelope(_ text: String, to user: String) -> OutgoingEnvelope {
        OutgoingEnvelope(channel: .person(user), payload: TextContent(text).encoded())
    }

    @Test(arguments: [false, true])
    func aTransientFailureStopsOnlyItsChannel(useHubBatch: Bool) async throws {
        let setup = try HubSetup()
        let hubTransport = try setup.hub.connect(user: "alice")
        let transport: any Transport = useHubBatch ? hubTransport : SendOnlyTransport(base: hubTransport)
        setup.hub.failNextSends(1, with: ParleyError(.rateLimited, "slow down", retryAfter: .seconds(1)), from: "alice")
        let results = await transport.sendBatch([Self.envelope("a", to: "bob"), Self.envelope("b", to: "bob"), Self.envelope("c", to: "carol")])
        #expect(results.count == 3)
        #expect((try? results[0].get()) == nil)
        #expect(throws: ParleyError.self) { try results[0].get() }
        #expect {
            try results[1].get()
        } throws: { ($0 as? ParleyError)?.code == .notSent }
        #expect((try? results[2].get()) != nil)
        #expect(try setup.hub.messages(in: .person("alice"), seenBy: "bob").isEmpty)
    }

    @Test func theOutboxRetriesNotSentMessagesInOrder() async throws {
        let setup = try HubSetup()
        let transport = SendOnlyTransport(base: try setup.hub.connect(user: "alice"))
        let outbox = Outbox(transport: transport, store: MemoryOutboxStore(), clock: setup.clock)
        try await outbox.start()
        setup.hub.failNextSends(1, with: ParleyError(.serverError, "hiccup"), from: "alice")
        let items = ["1", "2", "3"].map { OutboxItem(operation: .message(Self.envelope($0, to: "bob"))) }
        let task = Task { await outbox.submit(items) }
        try await withTimeout { await setup.clock.waitForSleepers(1) }
        await setup.clock.advance(by: .seconds(1))
        let results = try await withTimeout { await task.value }
        for result in results { _ = try result.get() }
        #expect(try setup.hub.messages(in: .person("alice"), seenBy: "bob").compactMap { $0.payload["text"]?.stringValue } == ["1", "2", "3"])
        await outbox.stop()
    }

    @Test func uuidSequencesAreUniqueAndVersionFour() {
        var first = UUIDSequence()
        var second = UUIDSequence()
        var seen: Set<UUID> = []
        for _ in 0..<10_000 {
            #expect(seen.insert(first.next()).inserted)
            #expect(seen.insert(second.next()).inserted)
        }
        let text = first.next().uuidString
        #expect(Array(text)[14] == "4")
        #expect("89AB".contains(Array(text)[19]))
    }
}
