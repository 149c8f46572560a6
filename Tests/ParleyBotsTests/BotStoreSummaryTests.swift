import Foundation
@testable import ParleyBots
import ParleyTesting
import Testing

/// What the admin API reads from the engine store — tickets by queue and status, each queue's
/// oldest open ticket, conversations waiting in a flow, listings newest first — is the same
/// in memory and in SQL (SQLite reads the JSON with json_extract, PostgreSQL with ->>).
@Suite struct BotStoreSummaryTests {
    static func time(_ seconds: Double) -> Date { Date(timeIntervalSince1970: 1_800_000_000 + seconds) }

    @Test(arguments: TestDatabase.kinds) func summaryListingsAndCountsAgreeOnEveryStore(database: TestDatabase) async throws {
        let stores: [(String, any BotStore)] = [("memory", MemoryBotStore()), ("\(database)", try DatabaseBotStore(path: database.location("summary")))]
        for (name, store) in stores {
            func open(_ user: String, _ queue: String, at seconds: Double) async throws -> Ticket {
                try await store.open(Ticket(bot: "support", channel: "user:\(user)", user: user, queue: queue, openedAt: Self.time(seconds)))
            }
            var a = try await open("a", "agents", at: 10)
            let b = try await open("b", "agents", at: 20)
            var c = try await open("c", "agents", at: 30)
            _ = try await open("d", "sales", at: 40)
            let e = try await open("e", "agents", at: 50)
            a.status = .taken
            a.agent = "nina"
            try await store.update(a)
            c.status = .resolved
            c.resolvedAt = Self.time(60)
            try await store.update(c)
            try store.save(ConversationState(waiting: StepPosition(flow: "ask", step: "name")), bot: "support", channel: "user:a")
            try store.save(ConversationState(vars: ["x": "1"]), bot: "support", channel: "user:b")
            try store.save(ConversationState(waiting: StepPosition(flow: "ask", step: "name")), bot: "sales", channel: "user:a")

            let summary = try store.summary()
            #expect(summary.tickets == [.init(queue: "agents", status: .open): 2, .init(queue: "agents", status: .taken): 1,
                                        .init(queue: "agents", status: .resolved): 1, .init(queue: "sales", status: .open): 1], "\(name)")
            #expect(summary.oldestOpen == ["agents": Self.time(20), "sales": Self.time(40)], "\(name)")
            #expect(summary.activeFlows == ["support": 1, "sales": 1], "\(name)")

            #expect(try store.listTickets(queue: "agents", statuses: [.open, .taken], limit: 10).map(\.number) == [e.number, b.number, a.number],
                    "\(name)")
            #expect(try store.listTickets(queue: nil, statuses: [], limit: 2).map { "\($0.queue)#\($0.number)" } == ["agents#4", "sales#1"],
                    "\(name)")
            #expect(try store.listTickets(queue: "sales", statuses: [.resolved], limit: 10).isEmpty, "\(name)")
            #expect(try store.takenCounts(queue: "agents") == ["nina": 1], "\(name)")
            #expect(try store.waitingAhead(of: e.number, queue: "agents") == 1, "\(name)")
        }
    }
}
