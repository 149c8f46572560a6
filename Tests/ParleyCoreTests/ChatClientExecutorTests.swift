import Foundation
import ParleyCore
import ParleyHub
import Testing
import TestSupport

/// A client runs on an executor of its own unless it shares its outbox's; either way it
/// sends, retries and receives alike.
@Suite struct ChatClientExecutorTests {
    @Test(arguments: [false, true], [ChatStorage.memory, nil])
    func sendsRetriesAndReceivesOnEitherExecutor(shared: Bool, storage: ChatStorage?) async throws {
        let setup = try HubSetup()
        let (alice, _) = try await setup.online("alice", storage: storage ?? .sqlite(path: setup.databasePath("alice"))) {
            $0.sharesOutboxExecutor = shared
        }
        let (bob, events) = try await setup.online("bob")
        // The executor's bits: `UnownedSerialExecutor` is not `Equatable`.
        let sameExecutor = withUnsafeBytes(of: alice.unownedExecutor) { Array($0) }
            == withUnsafeBytes(of: alice.outbox.unownedExecutor) { Array($0) }
        #expect(sameExecutor == shared)
        setup.hub.failNextSends(1, with: ParleyError(.serverError, "try again"), from: "alice")
        let first = Task { try await alice.send(TextContent("first"), to: .person("bob")) }
        try await withTimeout { await setup.clock.waitForSleepers(1) }
        await setup.clock.advance(by: .seconds(1))
        _ = try await withTimeout { try await first.value }
        _ = try await alice.send(TextContent("second"), to: .person("bob"))
        let texts = try await withTimeout {
            var texts: [String] = []
            for await event in events {
                if case .message(let message) = event, let text = (message.content as? TextContent)?.text { texts.append(text) }
                if texts.count == 2 { break }
            }
            return texts
        }
        #expect(texts == ["first", "second"])
        await alice.close()
        await bob.close()
    }
}
