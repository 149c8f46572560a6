import Foundation
import ParleyCore
import ParleyHub
import Testing
import ParleyTesting

/// A client reconnects by itself after the server dropped it: at once, then with backoff on
/// its clock, until connected, `disconnect()`, or the policy's attempt limit.
@Suite struct ChatClientReconnectTests {
    /// 1 s doubling, no jitter: delays the test can step through on the virtual clock.
    static func steady(maxAttempts: Int = .max) -> RetryPolicy {
        RetryPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(60), jitter: 0, maxAttempts: maxAttempts)
    }

    static func isState(_ wanted: ConnectionState) -> @Sendable (ChatEvent) -> Bool {
        { if case .connectionState(let state) = $0 { state == wanted } else { false } }
    }

    static func isAttemptFailure(_ event: ChatEvent) -> Bool {
        if case .error(let error) = event { error.context["attempt"] != nil } else { false }
    }

    @Test func aDroppedClientReconnectsWithBackoffAndCatchesUp() async throws {
        let setup = try HubSetup()
        let (alice, _) = try await setup.online("alice")
        let (bob, bobEvents) = try await setup.online("bob") { $0.reconnect = Self.steady() }
        setup.hub.refuseNextConnects(2, of: "bob")
        setup.hub.dropConnection(of: "bob")
        _ = try await firstEvent(bobEvents, where: Self.isState(.reconnecting))
        // Attempt 1 (at once) is refused; sent meanwhile, this waits in the hub for catch-up.
        let first = try await firstEvent(bobEvents, where: Self.isAttemptFailure)
        guard case .error(let failure) = first else { return }
        #expect(failure.context["attempt"] == "1" && failure.context["retry_in"] == "1.0s")
        let sent = try await alice.send(TextContent("while you were away"), to: .person("bob"))
        #expect(await bob.connectionState == .reconnecting)

        try await withTimeout { await setup.clock.waitForSleepers(1) }
        await setup.clock.advance(by: .seconds(1))
        let second = try await firstEvent(bobEvents, where: Self.isAttemptFailure)
        guard case .error(let again) = second else { return }
        #expect(again.context["attempt"] == "2" && again.context["retry_in"] == "2.0s")
        try await withTimeout { await setup.clock.waitForSleepers(1) }
        await setup.clock.advance(by: .seconds(2))
        _ = try await firstEvent(bobEvents, where: Self.isState(.connected))
        let received = try await collectMessages(bobEvents, count: 1)
        #expect(received.map(\.id) == [sent.id])
        // Live again: the next message arrives without a reconnect.
        let next = try await alice.send(TextContent("welcome back"), to: .person("bob"))
        #expect(try await collectMessages(bobEvents, count: 1).map(\.id) == [next.id])
        await alice.close()
        await bob.close()
    }

    @Test func disconnectStopsReconnecting() async throws {
        let setup = try HubSetup()
        let (bob, bobEvents) = try await setup.online("bob") { $0.reconnect = Self.steady() }
        setup.hub.refuseNextConnects(100, of: "bob")
        setup.hub.dropConnection(of: "bob")
        _ = try await firstEvent(bobEvents, where: Self.isAttemptFailure)
        try await withTimeout { await setup.clock.waitForSleepers(1) }
        #expect(setup.clock.sleeperCount == 1)
        await bob.disconnect()
        #expect(await bob.connectionState == .disconnected)
        // The backoff timer went with the loop (cancelling a sleep removes it at once).
        #expect(setup.clock.sleeperCount == 0)
        setup.hub.clearFaults()
        // Connecting is the owner's call again, and works.
        try await bob.connect()
        #expect(await bob.connectionState == .connected)
        await bob.close()
    }

    @Test func reconnectGivesUpAfterTheAttemptLimit() async throws {
        let setup = try HubSetup()
        let (bob, bobEvents) = try await setup.online("bob") { $0.reconnect = Self.steady(maxAttempts: 2) }
        setup.hub.refuseNextConnects(5, of: "bob")
        setup.hub.dropConnection(of: "bob")
        _ = try await firstEvent(bobEvents, where: Self.isAttemptFailure)
        try await withTimeout { await setup.clock.waitForSleepers(1) }
        await setup.clock.advance(by: .seconds(1))
        let last = try await firstEvent(bobEvents) { if case .error(let error) = $0 { error.message.contains("gave up") } else { false } }
        guard case .error(let error) = last else { return }
        #expect(error.message == "reconnect gave up after 2 attempts: connection refused")
        #expect(await bob.connectionState == .disconnected)
        await bob.close()
    }

    @Test func withoutAPolicyADroppedClientStaysDisconnected() async throws {
        let setup = try HubSetup()
        let (bob, bobEvents) = try await setup.online("bob") { $0.reconnect = nil }
        setup.hub.dropConnection(of: "bob")
        _ = try await firstEvent(bobEvents, where: Self.isState(.disconnected))
        #expect(setup.clock.sleeperCount == 0)
        #expect(await bob.connectionState == .disconnected)
        // Long past any backoff the default policy would wait: still nobody reconnected.
        await setup.clock.advance(by: .seconds(3600))
        for _ in 0..<100 { await Task.yield() }
        #expect(await bob.connectionState == .disconnected)
        #expect(!setup.hub.isOnline("bob"))
        try await bob.connect()
        #expect(await bob.connectionState == .connected)
        await bob.close()
    }
}
