import Foundation
import ParleyCore
import ParleyHub
import ParleyStore
import Testing
import ParleyTesting

/// A received message reaches the client's history only once the event handler has returned
/// from its batch: a consumer that keeps what it is given (a bot's inbox) has it durable first,
/// so a crash between the two cannot leave a message the history calls seen and nobody kept.
@Suite struct ChatClientHistoryAfterHandlerTests {
    @Test func historyIsWrittenWhenTheHandlerReturnsNotWhileItRuns() async throws {
        let setup = try HubSetup()
        let path = setup.databasePath("bob")
        let bob = try setup.client("bob", storage: .sqlite(path: path))
        let stored = Locked<[Int]>([])
        @Sendable func rows() throws -> Int { try Connection(path: path).scalar("SELECT COUNT(*) FROM messages")?.int ?? -1 }
        await bob.setEventHandler { batch in
            guard batch.contains(where: { if case .message = $0 { true } else { false } }) else { return }
            // Turns of the client's actor: its history write, if it were scheduled now, runs
            // in these (it waits 16 yields for more to come).
            for _ in 0..<64 { await Task.yield() }
            stored.mutate { $0.append((try? rows()) ?? -2) }
        }
        try await bob.connect()
        let (alice, _) = try await setup.online("alice")
        _ = try await alice.send(TextContent("keep me"), to: .person("bob"))
        try await withTimeout {
            while stored.value.isEmpty { try Task.checkCancellation(); await Task.yield() }
        }
        #expect(stored.value == [0], "nothing in the history while the handler has the message")
        // Written right after the handler returns, by the delivery itself.
        try await withTimeout {
            while try rows() != 1 { try Task.checkCancellation(); await Task.yield() }
        }
        await alice.close()
        await bob.close()
    }
}
