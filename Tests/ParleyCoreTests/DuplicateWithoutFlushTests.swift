import Foundation
@testable import ParleyCore
import Testing

/// A repeat of a message whose history write is still pending (the echo of a send, a resend)
/// is dropped without flushing history first: one commit per echo would undo the write-behind.
@Suite struct DuplicateWithoutFlushTests {
    @Test func aRepeatOfAPendingMessageIsDroppedAndLeavesHistoryPending() async throws {
        let setup = try HubSetup()
        let (bob, events) = try await setup.online("bob", storage: .sqlite(path: setup.databasePath("bob")))
        let first = Envelope(id: "first", channel: .group("team"), seq: 1, clientMessageID: UUID(), sender: "alice",
                             timestamp: setup.clock.now(), payload: ["type": 1, "text": "first"])
        // On the actor in one go: the scheduled flush cannot run between the two deliveries.
        let pending = await Self.deliverTwice(first, to: bob)
        #expect(pending == ["first"])
        let later = Envelope(id: "later", channel: .group("team"), seq: 2, clientMessageID: UUID(), sender: "alice",
                             timestamp: setup.clock.now(), payload: ["type": 1, "text": "later"])
        await bob.handle(.message(later))
        #expect(try await collectMessages(events, count: 2).map(\.text) == ["first", "later"])
        // Once written, a repeat is still found (in the store now).
        await bob.flushWrites()
        await bob.handle(.message(first))
        #expect(try await bob.history(of: .group("team")).map(\.id) == ["first", "later"])
        await bob.close()
    }

    /// Delivers `envelope` twice; the ids of the history writes still pending after.
    private static func deliverTwice(_ envelope: Envelope, to client: isolated ChatClient) -> [String] {
        client.handle(.message(envelope))
        client.handle(.message(envelope))
        return client.pendingWrites.map(\.id)
    }
}
