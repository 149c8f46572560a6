import Foundation
import ParleyCore
import ParleyHub
import Synchronization
import Testing

/// A hub transport that notes whether its `sendBatch` ran on the outbox's actor.
final class IsolationNotingTransport: ForwardingTransport {
    let base: any Transport
    /// One entry per `sendBatch`: true when it ran isolated to an `Outbox`.
    let onOutbox = Mutex<[Bool]>([])

    init(_ base: HubTransport) { self.base = base }

    func send(_ message: OutgoingEnvelope) async throws -> SendReceipt { try await base.send(message) }

    nonisolated(nonsending) func sendBatch(_ messages: [OutgoingEnvelope]) async -> [Result<SendReceipt, ParleyError>] {
        let current: (any Actor)? = #isolation
        let isolated = current.map { $0 is Outbox } ?? false
        onOutbox.withLock { $0.append(isolated) }
        return await base.sendBatch(messages)
    }
}

@Suite struct TransportIsolationTests {
    /// The outbox calls `sendBatch` on its own executor (the requirement is
    /// `nonisolated(nonsending)`), so a transport that answers at once costs no hop.
    @Test func theOutboxCallsSendBatchOnItsOwnExecutor() async throws {
        let setup = try HubSetup()
        let transport = IsolationNotingTransport(try setup.hub.connect(user: "alice"))
        let client = try ChatClient(transport: transport, configuration: ChatClientConfiguration(clock: setup.clock))
        try await client.connect()
        _ = try await client.send(TextContent("hi"), to: .person("bob"))
        _ = await client.batchSend([TextContent("a"), TextContent("b")], to: [.person("bob"), .person("carol")])
        let notes = transport.onOutbox.withLock { $0 }
        #expect(!notes.isEmpty)
        #expect(notes.allSatisfy { $0 })
        await client.close()
    }
}
