import Foundation
import ParleyBots
import Testing
import ParleyTesting

/// The counts hand-off staffing asks the store for, on both stores: the place of a waiting
/// customer, and each agent's taken tickets (`least_busy`).
@Suite struct BotStoreQueueCountTests {
    static func stores(_ database: TestDatabase) throws -> [(String, any BotStore)] {
        [("memory", MemoryBotStore()), ("\(database)", try DatabaseBotStore(path: database.location("queue-counts")))]
    }

    @Test(arguments: TestDatabase.kinds) func waitingAheadCountsOnlyUntakenTicketsOfTheQueueWithLowerNumbers(database: TestDatabase) async throws {
        for (name, store) in try Self.stores(database) {
            var tickets: [Ticket] = []
            for user in ["a", "b", "c", "d"] {
                tickets.append(try await store.open(Ticket(bot: "desk", channel: "user:\(user)", user: user, queue: "agents", openedAt: Date())))
            }
            _ = try await store.open(Ticket(bot: "desk", channel: "user:e", user: "e", queue: "other", openedAt: Date()))
            var taken = tickets[1]
            taken.status = .taken
            taken.agent = "nina"
            try await store.update(taken)
            var resolved = tickets[0]
            resolved.status = .resolved
            try await store.update(resolved)
            #expect(try store.waitingAhead(of: tickets[3].number, queue: "agents") == 1, "\(name)")
            #expect(try store.waitingAhead(of: tickets[2].number, queue: "agents") == 0, "\(name)")
            #expect(try store.waitingAhead(of: 1, queue: "other") == 0, "\(name)")
            var second = tickets[2]
            second.status = .taken
            second.agent = "nina"
            try await store.update(second)
            var third = tickets[3]
            third.status = .taken
            third.agent = "omar"
            try await store.update(third)
            #expect(try store.takenCounts(queue: "agents") == ["nina": 2, "omar": 1], "\(name)")
            #expect(try store.takenCounts(queue: "other") == [:], "\(name)")
        }
    }
}
