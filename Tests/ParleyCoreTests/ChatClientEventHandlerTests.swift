import Foundation
import ParleyCore
import ParleyHub
import Testing
import ParleyTesting

@Suite struct ChatClientEventHandlerTests {
    /// What a handler saw: the texts of messages, connection states, and whether two calls
    /// ever overlapped.
    struct Seen: Sendable {
        var texts: [String] = []
        var states: [ConnectionState] = []
        var running = 0
        var overlapped = false
    }

    @Test func theHandlerGetsEveryEventInOrderWithConnectionChanges() async throws {
        let setup = try HubSetup()
        let bob = try setup.client("bob")
        let seen = Locked(Seen())
        await bob.setEventHandler { batch in
            seen.mutate { seen in
                for event in batch {
                    switch event {
                    case .message(let message): seen.texts.append((message.content as? TextContent)?.text ?? "?")
                    case .connectionState(let state): seen.states.append(state)
                    default: break
                    }
                }
            }
        }
        try await bob.connect()
        let (alice, _) = try await setup.online("alice")
        for index in 1...5 { _ = try await alice.send(TextContent("m\(index)"), to: .person("bob")) }
        try await withTimeout {
            while seen.value.texts.count < 5 { try Task.checkCancellation(); await Task.yield() }
        }
        #expect(seen.value.texts == ["m1", "m2", "m3", "m4", "m5"])
        await bob.disconnect()
        try await withTimeout {
            while seen.value.states.last != .disconnected { try Task.checkCancellation(); await Task.yield() }
        }
        #expect(seen.value.states == [.connecting, .connected, .disconnected])
        await alice.close()
        await bob.close()
    }

    @Test func theNextBatchWaitsForTheHandlerAndCallsNeverOverlap() async throws {
        let setup = try HubSetup()
        let bob = try setup.client("bob")
        let seen = Locked(Seen())
        let gate = Locked<CheckedContinuation<Void, Never>?>(nil)
        await bob.setEventHandler { batch in
            let texts = batch.compactMap { event -> String? in
                guard case .message(let message) = event else { return nil }
                return (message.content as? TextContent)?.text
            }
            seen.mutate { seen in
                seen.running += 1
                if seen.running > 1 { seen.overlapped = true }
            }
            // The first message's batch is held until the test opens the gate.
            if texts.first == "m1" { await withCheckedContinuation { continuation in gate.mutate { $0 = continuation } } }
            seen.mutate { seen in
                seen.texts += texts
                seen.running -= 1
            }
        }
        try await bob.connect()
        let (alice, _) = try await setup.online("alice")
        _ = try await alice.send(TextContent("m1"), to: .person("bob"))
        try await withTimeout {
            while gate.value == nil { try Task.checkCancellation(); await Task.yield() }
        }
        for index in 2...4 { _ = try await alice.send(TextContent("m\(index)"), to: .person("bob")) }
        // Held: nothing of the later messages reached the handler.
        #expect(seen.value.texts.isEmpty)
        gate.mutate { $0 }?.resume()
        try await withTimeout {
            while seen.value.texts.count < 4 { try Task.checkCancellation(); await Task.yield() }
        }
        #expect(seen.value.texts == ["m1", "m2", "m3", "m4"])
        #expect(!seen.value.overlapped)
        await alice.close()
        await bob.close()
    }
}
