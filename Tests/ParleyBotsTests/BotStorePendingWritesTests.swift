import Foundation
import ParleyStore
import ParleyTesting
import Testing
@testable import ParleyBots

/// On SQLite a ticket write suspends its caller until the writer commits it, and others run
/// meanwhile: the reads that decide (a ticket's holder, a queue's turn) show the write from
/// the call on, while a reader connection would not see it before the COMMIT.
@Suite struct BotStorePendingWritesTests {
    @Test func aQueuedTicketAndTurnAreReadBeforeTheyCommit() async throws {
        let path = TestDatabase.sqlite.location("pending")
        let store = try DatabaseBotStore(path: path)
        let writer = try StoreWriter.shared(path: path)
        let opened = try await store.open(Ticket(bot: "desk", channel: "user:alice", user: "alice", queue: "agents", openedAt: Date()))
        try await store.setLastAssigned(queue: "agents", agent: "nina")

        let gate = WriterGate()
        gate.hold(writer)
        defer { gate.release() }
        var taken = opened
        taken.status = .taken
        taken.agent = "omar"
        let assigning = Task { try await store.assign(taken) }
        // Bounded: the assignment queues behind the held job.
        for _ in 0..<1_000 where writer.waiting < 1 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(writer.waiting == 1, "the assignment was not queued")
        #expect(try store.tickets(queue: "agents", number: opened.number) == [taken])
        #expect(try store.ticket(bot: "desk", channel: "user:alice", number: opened.number) == taken)
        #expect(try store.lastAssigned(queue: "agents") == "omar")
        gate.release()
        try await withTimeout { try await assigning.value }
        // Committed: the same from the file (a store of its own has nothing pending).
        let reopened = try DatabaseBotStore(path: path)
        #expect(try reopened.tickets(queue: "agents", number: opened.number) == [taken])
        #expect(try reopened.lastAssigned(queue: "agents") == "omar")
    }

    @Test func aWriteQueuesBeforeItsCallerLetsItsActorGo() async throws {
        let path = TestDatabase.sqlite.location("pending-order")
        let store = try DatabaseBotStore(path: path)
        let writer = try StoreWriter.shared(path: path)
        let ticket = try await store.open(Ticket(bot: "desk", channel: "user:alice", user: "alice", queue: "agents", openedAt: Date()))
        var resolved = ticket
        resolved.status = .resolved
        resolved.resolvedAt = Date()
        let later = ConversationState(vars: ["after": "the next message"])

        let gate = WriterGate()
        gate.hold(writer)
        defer { gate.release() }
        // Two tasks on one actor, as a bot's runtime has: the first resolves the ticket with its
        // conversation's state, the second (a next message) saves the state. The first queues
        // its write before it lets the actor go, so the second's lands after it, and the
        // conversation ends in the later state.
        let caller = Caller(store: store, writer: writer)
        let queuedBeforeTheSave = try await caller.resolveThenSave(resolved, freeing: ConversationState(vars: ["after": "resolve"]), then: later)
        #expect(queuedBeforeTheSave == 1, "the resolution was not queued when its caller let the actor go")
        gate.release()
        try await caller.finish()
        writer.flush()
        #expect(try store.state(bot: "desk", channel: "user:alice") == later)
        #expect(try store.tickets(queue: "agents", number: ticket.number) == [resolved])
    }

    /// A bot's runtime in small: an actor whose tasks write to the store.
    actor Caller {
        let store: DatabaseBotStore
        let writer: StoreWriter
        private var resolving: Task<Void, any Error>?

        init(store: DatabaseBotStore, writer: StoreWriter) {
            self.store = store
            self.writer = writer
        }

        /// Starts a task resolving `ticket`, then one saving `state`, both on this actor and in
        /// that order; returns the writes that were queued when the second began.
        func resolveThenSave(_ ticket: Ticket, freeing freed: ConversationState, then state: ConversationState) async throws -> Int {
            resolving = Task { try await self.resolve(ticket, freeing: freed) }
            let saving = Task { try self.save(state) }
            return try await withTimeout { try await saving.value }
        }

        private func resolve(_ ticket: Ticket, freeing state: ConversationState) async throws {
            try await store.update(ticket, state: state)
        }

        private func save(_ state: ConversationState) throws -> Int {
            let queued = writer.waiting
            try store.save(state, bot: "desk", channel: "user:alice", handled: "m2")
            return queued
        }

        func finish() async throws { try await withTimeout { [resolving] in try await resolving?.value } }
    }
}
