import Foundation
@testable import ParleyBots
import ParleyStore
import Testing
import ParleyTesting

/// Ticket numbers are drawn per queue, once each, by every bot sharing a store; a database
/// whose tickets were numbered per bot keeps their numbers and goes on after the highest.
@Suite struct BotStoreQueueNumberTests {
    @Test(arguments: TestDatabase.kinds) func botsOpeningAtOnceNeverDrawTheSameNumber(database: TestDatabase) async throws {
        let stores: [(String, any BotStore)] = [("memory", MemoryBotStore()), ("\(database)", try DatabaseBotStore(path: database.location("queue-numbers")))]
        for (name, store) in stores {
            let numbers = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        try await store.open(Ticket(bot: index % 2 == 0 ? "support" : "billing", channel: "user:u\(index)",
                                              user: "u\(index)", queue: "agents")).number
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(numbers.sorted() == Array(1...40), "\(name)")
            // Another queue has its own sequence.
            #expect(try await store.open(Ticket(bot: "support", channel: "user:x", user: "x", queue: "sales")).number == 1, "\(name)")
        }
    }

    @Test func ticketsNumberedPerBotKeepTheirNumbersAndNewOnesComeAfter() async throws {
        let path = BotStoreTicketTests.path()
        defer { try? FileManager.default.removeItem(atPath: path) }
        // The database as the store left it before numbers were per queue (schema version 3).
        let old = try Connection(path: path)
        // The store's own first steps: migrations only ever append, so these are exactly the
        // schema an older store wrote.
        try Migrations(name: "engine", steps: Array(DatabaseBotStore.migrations.steps.prefix(3))).apply(to: old)
        let rows: [(bot: String, number: Int, channel: String, queue: String, status: String)] = [
            ("support", 1, "user:alice", "agents", "open"), ("billing", 1, "user:bob", "agents", "taken"),
            ("billing", 2, "user:bob", "agents", "resolved"), ("support", 2, "user:carol", "sales", "open"),
        ]
        for row in rows {
            let json = #"{"number":\#(row.number),"bot":"\#(row.bot)","channel":"\#(row.channel)","user":"x","queue":"\#(row.queue)","status":"\#(row.status)"}"#
            try old.run("INSERT INTO engine_tickets (bot, number, ticket, channel, unresolved) VALUES (?, ?, ?, ?, ?)",
                        [.text(row.bot), .integer(Int64(row.number)), .text(json), .text(row.channel),
                         .integer(row.status == "resolved" ? 0 : 1)])
        }

        let store = try DatabaseBotStore(path: path)
        #expect(try store.tickets(queue: "agents", number: 1).map(\.bot) == ["support", "billing"])
        #expect(try store.ticket(bot: "support", channel: "user:carol", number: 2)?.queue == "sales")
        #expect(try await store.open(Ticket(bot: "support", channel: "user:alice", user: "alice", queue: "agents")).number == 1)
        #expect(try await store.open(Ticket(bot: "support", channel: "user:dave", user: "dave", queue: "agents")).number == 3)
        #expect(try await store.open(Ticket(bot: "billing", channel: "user:erin", user: "erin", queue: "sales")).number == 3)
        #expect(try await store.open(Ticket(bot: "billing", channel: "user:frank", user: "frank", queue: "new")).number == 1)
    }
}
