import Foundation
import ParleyCore
import ParleyHub
import Synchronization
import Testing
import ParleyTesting

/// A hub transport that sends `width` channels at once and holds every send until the test
/// opens the gate, so what the outbox has in flight can be counted.
final class GatedTransport: ForwardingTransport {
    struct State {
        var open = false
        var held: [CheckedContinuation<Void, Never>] = []
        var inFlight = 0
        var mostInFlight = 0
        var channelsInFlight: [Channel: Int] = [:]
        var sameChannelTwice = false
    }

    let base: any Transport
    let width: Int
    let state = Mutex(State())

    init(_ base: HubTransport, width: Int) {
        self.base = base
        self.width = width
    }

    var concurrentSends: Int { width }

    func send(_ message: OutgoingEnvelope) async throws -> SendReceipt {
        let mustWait = state.withLock { state in
            state.inFlight += 1
            state.mostInFlight = max(state.mostInFlight, state.inFlight)
            state.channelsInFlight[message.channel, default: 0] += 1
            if state.channelsInFlight[message.channel, default: 0] > 1 { state.sameChannelTwice = true }
            return !state.open
        }
        if mustWait {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    if state.open { return true }
                    state.held.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
        defer {
            state.withLock { state in
                state.inFlight -= 1
                state.channelsInFlight[message.channel, default: 1] -= 1
            }
        }
        return try await base.send(message)
    }

    func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] { await sendEachInOrder(messages) }

    func openGate() {
        let held = state.withLock { state in
            state.open = true
            defer { state.held.removeAll() }
            return state.held
        }
        for continuation in held { continuation.resume() }
    }
}

@Suite struct OutboxConcurrencyTests {
    @Test func aConcurrentTransportGetsThatManyChannelsAtOnceEachInOrder() async throws {
        let setup = try HubSetup()
        let users = (0..<10).map { "user\($0)" }
        for user in users { try setup.hub.addUser(Profile(id: user, name: user)) }
        let transport = GatedTransport(try setup.hub.connect(user: "alice"), width: 4)
        let outbox = Outbox(transport: transport, store: MemoryOutboxStore(), clock: setup.clock)
        try await outbox.start()
        let items = users.flatMap { user in
            (0..<5).map { OutboxItem(operation: .message(OutgoingEnvelope(channel: .person(user), payload: TextContent("m\($0)").encoded()))) }
        }
        let results = Task { await outbox.submit(items) }
        // Four channels' first sends are held at once; no fifth starts while they are.
        try await withTimeout {
            while transport.state.withLock({ $0.inFlight }) < 4 { try Task.checkCancellation(); await Task.yield() }
        }
        #expect(transport.state.withLock { $0.mostInFlight } == 4)
        transport.openGate()
        let outcomes = try await withTimeout { await results.value }
        for result in outcomes { _ = try result.get() }
        #expect(transport.state.withLock { $0.mostInFlight } == 4)
        #expect(!transport.state.withLock { $0.sameChannelTwice }, "a channel had two sends in flight")
        for user in users {
            let texts = try setup.hub.messages(in: .person("alice"), seenBy: user).compactMap { $0.payload["text"]?.stringValue }
            #expect(texts == (0..<5).map { "m\($0)" }, "\(user)")
        }
        await outbox.stop()
    }
}
