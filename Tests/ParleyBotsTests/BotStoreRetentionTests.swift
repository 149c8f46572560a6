import Foundation
import ParleyBots
import Testing
import ParleyTesting

/// `storage.retention` in the engine store: tickets resolved before the cutoff and greetings
/// of users not heard from since are deleted; open tickets and users still around stay.
@Suite struct BotStoreRetentionTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static func day(_ number: Double) -> Date { start.addingTimeInterval(number * 86_400) }

    @Test(arguments: TestDatabase.kinds) func aGreetingIsDecidedAgainForTheMessageItAnsweredAndForNoOther(database: TestDatabase) async throws {
        for (name, store, path) in try BotStoreTicketTests.stores(database) {
            defer { if let path { try? FileManager.default.removeItem(atPath: path) } }
            #expect(try await store.markGreeted(bot: "support", key: "user:alice", at: Self.day(0), message: "m1"), "\(name)")
            // m1 handled again after a crash: greeted again (under the same send names).
            #expect(try await store.markGreeted(bot: "support", key: "user:alice", at: Self.day(0), message: "m1"), "\(name)")
            #expect(try await !store.markGreeted(bot: "support", key: "user:alice", at: Self.day(0), message: "m2"), "\(name)")
            #expect(try await !store.markGreeted(bot: "support", key: "user:alice", at: Self.day(1), message: nil), "\(name)")
            #expect(try await store.markGreeted(bot: "support", key: "group:g", at: Self.day(0), message: nil), "\(name)")
            #expect(try await !store.markGreeted(bot: "support", key: "group:g", at: Self.day(0), message: nil), "\(name)")
        }
    }

    @Test(arguments: TestDatabase.kinds) func oldGreetingsAndResolvedTicketsGoOpenTicketsAndRecentUsersStay(database: TestDatabase) async throws {
        for (name, store, path) in try BotStoreTicketTests.stores(database) {
            defer { if let path { try? FileManager.default.removeItem(atPath: path) } }
            #expect(try await store.markGreeted(bot: "support", key: "user:alice", at: Self.day(0), message: nil), "\(name)")
            #expect(try await store.markGreeted(bot: "support", key: "user:bob", at: Self.day(10), message: nil), "\(name)")
            // Alice is still around on day 20: her greeting is kept past the cutoff.
            #expect(try await !store.markGreeted(bot: "support", key: "user:alice", at: Self.day(20), message: nil), "\(name)")

            var old = try await store.open(Ticket(bot: "support", channel: "user:carol", user: "carol", queue: "agents"))
            old.status = .resolved
            old.resolvedAt = Self.day(1)
            try await store.update(old)
            var recent = try await store.open(Ticket(bot: "support", channel: "user:dan", user: "dan", queue: "agents"))
            recent.status = .resolved
            recent.resolvedAt = Self.day(40)
            try await store.update(recent)
            let open = try await store.open(Ticket(bot: "support", channel: "user:erin", user: "erin", queue: "agents"))

            #expect(try store.prune(before: Self.day(15)) == 2, "\(name): bob's greeting and carol's ticket")
            #expect(try store.tickets(queue: "agents", number: old.number).isEmpty, "\(name)")
            #expect(try store.tickets(queue: "agents", number: recent.number) == [recent], "\(name)")
            #expect(try store.tickets(queue: "agents", number: open.number) == [open], "\(name)")
            // Bob went quiet long ago: he is greeted again as new; Alice is not.
            #expect(try await store.markGreeted(bot: "support", key: "user:bob", at: Self.day(50), message: nil), "\(name)")
            #expect(try await !store.markGreeted(bot: "support", key: "user:alice", at: Self.day(50), message: nil), "\(name)")
            // Numbers keep counting after a deleted ticket: an agent's old number never names a new one.
            #expect(try await store.open(Ticket(bot: "support", channel: "user:fay", user: "fay", queue: "agents")).number == open.number + 1, "\(name)")
            #expect(try store.prune(before: Self.day(15)) == 0, "\(name)")
        }
    }
}
