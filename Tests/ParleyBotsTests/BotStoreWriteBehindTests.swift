import Foundation
import ParleyCore
import ParleyTesting
import ParleyStore
import Synchronization
import Testing
@testable import ParleyBots

/// On PostgreSQL a handled message's write (its conversation's state, its removal from the
/// inbox) goes behind the bot's back: the bot handles the next message without waiting a round
/// trip, and every read of the store sees the write.
@Suite(.enabled(if: TestDatabase.postgresURL != nil, "no PostgreSQL: run scripts/postgres start"))
struct BotStoreWriteBehindTests {
    @Test func aHandledMessagesWriteDoesNotWaitForTheDatabaseAndEveryReadSeesIt() async throws {
        let location = TestDatabase.postgres.location("behind")
        let store = try DatabaseBotStore(path: location)
        let message = ReceivedMessage(Message(id: "m1", channel: .person("alice"), seq: 1, clientMessageID: UUID(), sender: "alice",
                                              timestamp: Date(timeIntervalSince1970: 1_796_112_000), content: TextContent("42")))
        try await store.receive([message], bot: "desk")
        try store.save(ConversationState(vars: ["step": "asked"]), bot: "desk", channel: "user:alice", handled: nil)
        // Another connection holds the conversation's row: a write to it waits until released.
        let blocker = RowBlocker(try Connection(path: location))
        try blocker.lock("SELECT state FROM engine_states WHERE bot = 'desk' AND channel = 'user:alice' FOR UPDATE")
        // Released after 60 s at the latest, so a store that writes in place ends the test too.
        blocker.release(after: 60)
        let started = ContinuousClock.now
        let answered = ConversationState(vars: ["step": "done", "order": "42"])
        try store.save(answered, bot: "desk", channel: "user:alice", handled: "m1")
        let took = ContinuousClock.now - started
        // Generous (the whole suite runs beside this on 2 cores); in place it waits the 60 s.
        #expect(took < .seconds(30), "the save waited \(took) for the locked row")
        blocker.release(after: 0)
        // The reads wait for the write.
        #expect(try store.state(bot: "desk", channel: "user:alice") == answered)
        #expect(try store.unhandled(bot: "desk").isEmpty)
    }
}

/// A row lock held by a connection of its own, released once (by the test or a timer thread).
final class RowBlocker: Sendable {
    private let connection: Mutex<Connection?>

    init(_ connection: sending Connection) { self.connection = Mutex(connection) }

    func lock(_ query: String) throws {
        try connection.withLock { connection in
            try connection?.execute("BEGIN")
            _ = try connection?.rows(query)
        }
    }

    func release(after seconds: Double) {
        let release = { @Sendable in self.connection.withLock { connection in
            try? connection?.execute("ROLLBACK")
            connection = nil
        } }
        if seconds <= 0 { release() } else { DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: release) }
    }
}
