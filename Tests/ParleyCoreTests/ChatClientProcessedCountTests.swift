import Foundation
@testable import ParleyCore
import ParleyHub
import Testing
import ParleyTesting

/// The hub's transport, with events of the test's own put into the hub's event queue behind
/// what the hub delivered: repeats and undecodable messages the hub itself never sends.
final class InjectingTransport: ForwardingTransport, BatchedEventSource {
    let hubTransport: HubTransport
    private let queue = Locked<BatchQueue<TransportEvent>?>(nil)

    init(_ hubTransport: HubTransport) { self.hubTransport = hubTransport }

    var base: any Transport { hubTransport }

    func connectBatched() async throws -> AsyncStream<[TransportEvent]> { try await connectQueue().stream() }

    func connectQueue() async throws -> BatchQueue<TransportEvent> {
        let queue = try await hubTransport.connectQueue()
        self.queue.mutate { $0 = queue }
        return queue
    }

    /// Puts `events` into the open stream's queue; false when there is none.
    func inject(_ events: [TransportEvent]) -> Bool { queue.value?.push(contentsOf: events) ?? false }

    func send(_ message: OutgoingEnvelope) async throws -> SendReceipt { try await base.send(message) }
    func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] { await base.sendBatch(messages) }
}

/// `ChatClient.processedEventCount` counts every event the client took once, and only when
/// its event handler has had what the event raised.
@Suite struct ChatClientProcessedCountTests {
    /// What a handler saw.
    struct Seen: Sendable {
        var texts: [String] = []
        var errors = 0
        var memberships = 0
        /// The handler waits for the gate (its call is under way).
        var gate: CheckedContinuation<Void, Never>?
    }

    static func client(_ setup: HubSetup, _ transport: any Transport) throws -> ChatClient {
        try ChatClient(transport: transport, configuration: ChatClientConfiguration(clock: setup.clock, hiddenMessages: .drop))
    }

    /// A handler noting what it sees in `seen`; a batch holding a message whose text is
    /// `holding` waits until the test resumes `seen.gate`.
    static func recording(into seen: Locked<Seen>, holding: String? = nil) -> ChatClient.EventHandler {
        { batch in
            let texts = batch.compactMap { event -> String? in
                guard case .message(let message) = event else { return nil }
                return message.text
            }
            if let holding, texts.contains(holding) {
                await withCheckedContinuation { continuation in seen.mutate { $0.gate = continuation } }
            }
            seen.mutate { seen in
                seen.texts += texts
                for event in batch {
                    switch event {
                    case .error: seen.errors += 1
                    case .membership: seen.memberships += 1
                    default: break
                    }
                }
            }
        }
    }

    static func envelope(_ id: String, seq: Int64, payload: JSONValue, visibleTo: [String]? = nil) -> Envelope {
        var envelope = Envelope(id: id, channel: .group("team"), seq: seq, clientMessageID: UUID(), sender: "alice",
                                timestamp: Date(timeIntervalSince1970: 0), payload: payload)
        envelope.visibleTo = visibleTo
        return envelope
    }

    @Test func everyTakenEventCountsOnceWhateverBecomesOfIt() async throws {
        let setup = try HubSetup()
        let transport = InjectingTransport(try setup.hub.connect(user: "bob"))
        let bob = try Self.client(setup, transport)
        let seen = Locked(Seen())
        await bob.setEventHandler(Self.recording(into: seen))
        await bob.setMessageFilter { $0.text?.contains("spam") == true ? .drop : .deliver($0) }
        try await bob.connect()
        let (alice, _) = try await setup.online("alice")
        // Delivered by the hub: the connection event, a message, a filtered one.
        _ = try await alice.send(TextContent("hello"), to: .person("bob"))
        _ = try await alice.send(TextContent("buy spam"), to: .person("bob"))
        let news = Self.envelope("n1", seq: 1, payload: ["type": 1, "text": "news"])
        let injected: [TransportEvent] = [
            .message(news),
            .message(news),
            .message(Self.envelope("n2", seq: 2, payload: ["type": 1, "text": "for carol"], visibleTo: ["carol"])),
            .message(Self.envelope("n3", seq: 3, payload: ["type": 2, "url": 42])),
            .membership(MembershipEvent(channel: .group("team"), user: "carol", change: .joined)),
        ]
        #expect(transport.inject(injected))
        let taken = transport.hubTransport.deliveredEventCount + injected.count
        try await withTimeout("processed") { await bob.waitUntilProcessed(taken) }
        #expect(await bob.processedEventCount == taken)
        // The handler had everything by then: the repeat, the hidden and the filtered
        // message raised nothing, the undecodable one an error.
        #expect(seen.value.texts == ["hello", "news"])
        #expect(seen.value.errors == 1)
        #expect(seen.value.memberships == 1)
        await alice.close()
        await bob.close()
    }

    @Test func aWaitReturnsOnlyOnceTheHandlerReturned() async throws {
        let setup = try HubSetup()
        let transport = try setup.hub.connect(user: "bob")
        let bob = try Self.client(setup, transport)
        let seen = Locked(Seen())
        await bob.setEventHandler(Self.recording(into: seen, holding: "m1"))
        try await bob.connect()
        let (alice, _) = try await setup.online("alice")
        _ = try await alice.send(TextContent("m1"), to: .person("bob"))
        try await withTimeout("the held handler") {
            while seen.value.gate == nil { try Task.checkCancellation(); await Task.yield() }
        }
        let taken = transport.deliveredEventCount
        #expect(await bob.processedEventCount < taken)
        let waiting = Task { await bob.waitUntilProcessed(taken) }
        seen.mutate { $0.gate.take() }?.resume()
        try await withTimeout("processed") { await waiting.value }
        #expect(seen.value.texts == ["m1"])
        await alice.close()
        await bob.close()
    }

    /// A batch received while another task's delivery runs (here one of a local message)
    /// reaches the handler through that delivery: it counts once that one returned.
    @Test func eventsCarriedByAnotherDeliveryCountWhenItReturns() async throws {
        let setup = try HubSetup()
        let transport = try setup.hub.connect(user: "bob")
        let bob = try Self.client(setup, transport)
        let seen = Locked(Seen())
        await bob.setEventHandler(Self.recording(into: seen, holding: "local"))
        try await bob.connect()
        let (alice, _) = try await setup.online("alice")
        try await withTimeout("connected") { await bob.waitUntilProcessed(transport.deliveredEventCount) }
        try await bob.insertLocalMessage(TextContent("local"), into: Channel(kind: .local, id: "notes"))
        try await withTimeout("the held handler") {
            while seen.value.gate == nil { try Task.checkCancellation(); await Task.yield() }
        }
        _ = try await alice.send(TextContent("m1"), to: .person("bob"))
        let taken = transport.deliveredEventCount
        try await withTimeout("m1 handled") {
            while await bob.handledEvents < taken { try Task.checkCancellation(); await Task.yield() }
        }
        #expect(await bob.processedEventCount < taken)
        seen.mutate { $0.gate.take() }?.resume()
        try await withTimeout("processed") { await bob.waitUntilProcessed(taken) }
        #expect(seen.value.texts == ["local", "m1"])
        await alice.close()
        await bob.close()
    }

    @Test func cancellingOrClosingEndsAWait() async throws {
        let setup = try HubSetup()
        let bob = try Self.client(setup, try setup.hub.connect(user: "bob"))
        try await bob.connect()
        let cancelled = Task { await bob.waitUntilProcessed(.max) }
        cancelled.cancel()
        try await withTimeout("the cancelled wait") { await cancelled.value }
        let closing = Task { await bob.waitUntilProcessed(.max) }
        try await withTimeout("the wait") {
            while await bob.processedWaiters.isEmpty { try Task.checkCancellation(); await Task.yield() }
        }
        await bob.close()
        try await withTimeout("the wait at close") { await closing.value }
    }
}
