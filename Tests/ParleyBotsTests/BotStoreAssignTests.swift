import Foundation
import ParleyBots
import Testing
import ParleyTesting

/// An assignment is stored with its queue's turn in one write, and a ticket updated while it
/// stays unresolved (its JSON alone on SQLite) still resolves, reopens and prunes as before.
@Suite struct BotStoreAssignTests {
    func stores(_ database: TestDatabase) throws -> [(String, any BotStore)] {
        [("memory", MemoryBotStore()), ("\(database)", try DatabaseBotStore(path: database.location("assign")))]
    }

    @Test(arguments: TestDatabase.kinds) func assignStoresTheTicketAndTheTurn(database: TestDatabase) async throws {
        for (name, store) in try stores(database) {
            var ticket = try await store.open(Ticket(bot: "desk", channel: "user:a", user: "a", queue: "agents", openedAt: Date()))
            ticket.status = .taken
            ticket.agent = "nina"
            try await store.assign(ticket)
            #expect(try store.tickets(queue: "agents", number: ticket.number).map(\.agent) == ["nina"], "\(name)")
            #expect(try store.lastAssigned(queue: "agents") == "nina", "\(name)")
        }
    }

    @Test(arguments: TestDatabase.kinds) func anUnresolvedUpdateKeepsTheTicketOpenUntilResolved(database: TestDatabase) async throws {
        for (name, store) in try stores(database) {
            var ticket = try await store.open(Ticket(bot: "desk", channel: "user:a", user: "a", queue: "agents", openedAt: Date()))
            ticket.remindedAt = Date()
            try await store.update(ticket)
            // Still the conversation's unresolved ticket: a hand-off again gets it back.
            #expect(try await store.open(Ticket(bot: "desk", channel: "user:a", user: "a", queue: "agents")) == ticket, "\(name)")
            #expect(try store.waitingAhead(of: ticket.number + 1, queue: "agents") == 1, "\(name)")
            ticket.status = .resolved
            ticket.resolvedAt = Date(timeIntervalSinceNow: -60)
            try await store.update(ticket)
            #expect(try store.summary().tickets.filter { $0.key.status == .resolved }.map(\.value) == [1], "\(name)")
            #expect(try await store.open(Ticket(bot: "desk", channel: "user:a", user: "a", queue: "agents")).number == ticket.number + 1, "\(name)")
            // Resolved with its time: retention prunes it (and not the new open one).
            #expect(try store.prune(before: Date()) == 1, "\(name)")
        }
    }
}
