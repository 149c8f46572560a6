import Foundation
@testable import ParleyBots
import ParleyStore
import Testing
import ParleyTesting

/// A conversation has at most one unresolved ticket: opening another returns it, in both stores,
/// and in a SQLite file written before the store kept tickets' conversations as columns.
@Suite struct BotStoreTicketTests {
    static func path() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("engine-tickets-\(UUID().uuidString).db").path
    }

    static func stores(_ database: TestDatabase) throws -> [(String, any BotStore, String?)] {
        let path = database.location("engine-tickets")
        return [("memory", MemoryBotStore(), nil), ("\(database)", try DatabaseBotStore(path: path), path)]
    }

    @Test(arguments: TestDatabase.kinds) func anUnresolvedTicketIsReturnedInsteadOfASecond(database: TestDatabase) async throws {
        for (name, store, path) in try Self.stores(database) {
            defer { if let path { try? FileManager.default.removeItem(atPath: path) } }
            let first = try await store.open(Ticket(bot: "support", channel: "user:alice", user: "alice", queue: "agents"))
            let again = try await store.open(Ticket(bot: "support", channel: "user:alice", user: "alice", queue: "agents"))
            #expect(again == first, "\(name)")
            // Other conversations and other bots get their own, numbered in the queue.
            #expect(try await store.open(Ticket(bot: "support", channel: "user:bob", user: "bob", queue: "agents")).number == 2, "\(name)")
            #expect(try await store.open(Ticket(bot: "sales", channel: "user:alice", user: "alice", queue: "agents")).number == 3, "\(name)")

            // Taken is still unresolved; resolved frees the conversation for a new ticket.
            var taken = first
            taken.status = .taken
            taken.agent = "carol"
            try await store.update(taken)
            #expect(try await store.open(Ticket(bot: "support", channel: "user:alice", user: "alice", queue: "agents")) == taken, "\(name)")
            var resolved = taken
            resolved.status = .resolved
            try await store.update(resolved)
            #expect(try await store.open(Ticket(bot: "support", channel: "user:alice", user: "alice", queue: "agents")).number == 4, "\(name)")
        }
    }

    @Test func ticketsWrittenBeforeTheMigrationAreFound() async throws {
        let path = Self.path()
        defer { try? FileManager.default.removeItem(atPath: path) }
        // The database as the first version of the store left it: tickets as JSON only.
        let old = try Connection(path: path)
        // The store's own first steps: migrations only ever append, so these are exactly the
        // schema an older store wrote.
        try Migrations(name: "engine", steps: Array(DatabaseBotStore.migrations.steps.prefix(1))).apply(to: old)
        for (number, channel, status) in [(1, "user:alice", "resolved"), (2, "user:alice", "taken"), (3, "user:bob", "resolved")] {
            let json = #"{"number":\#(number),"bot":"support","channel":"\#(channel)","user":"x","queue":"agents","status":"\#(status)"}"#
            try old.run("INSERT INTO engine_tickets (bot, number, ticket) VALUES ('support', ?, ?)", [.integer(Int64(number)), .text(json)])
        }

        let store = try DatabaseBotStore(path: path)
        #expect(try await store.open(Ticket(bot: "support", channel: "user:alice", user: "alice", queue: "agents")).number == 2)
        #expect(try await store.open(Ticket(bot: "support", channel: "user:bob", user: "bob", queue: "agents")).number == 4)
    }
}
