import Foundation
@testable import ParleyBots
import ParleyCore
import ParleyStore
import Testing

/// The schema step that writes fewer pages: the inbox keeps no AUTOINCREMENT counter, a
/// conversation's unresolved ticket is found without its own index, and states are kept
/// WITHOUT ROWID; a database from before keeps its inbox, in order, and its states.
@Suite struct BotStoreFewerPagesTests {
    static func message(_ id: String) -> ReceivedMessage {
        ReceivedMessage(Message(id: id, channel: .person("alice"), seq: 1, clientMessageID: UUID(), sender: "alice",
                                timestamp: Date(timeIntervalSince1970: 1_796_112_000), content: TextContent(id)))
    }

    @Test func anOlderInboxKeepsItsOrderAndNewMessagesGoAfter() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fewer-pages-\(UUID().uuidString).db").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        // The schema as the store wrote it before this step (migrations only ever append).
        let steps = DatabaseBotStore.migrations.steps
        let old = try Connection(path: path)
        try Migrations(name: "engine", steps: Array(steps.prefix(steps.count - 1))).apply(to: old)
        for id in ["m1", "m2"] {
            try old.run("INSERT INTO engine_inbox (bot, message_id, message) VALUES ('desk', ?, ?)", [.text(id), .text(Self.message(id).storedJSON)])
        }
        // The newest row handled, then another received (3 by the old counter): new ones come after it.
        try old.run("DELETE FROM engine_inbox WHERE message_id = 'm2'")
        try old.run("INSERT INTO engine_inbox (bot, message_id, message) VALUES ('desk', 'm0', ?)", [.text(Self.message("m0").storedJSON)])
        try old.run("INSERT INTO engine_states (bot, channel, state, deadline) VALUES ('desk', 'user:bob', '{\"vars\":{\"name\":\"Bob\"}}', NULL)")

        let store = try DatabaseBotStore(path: path)
        try await store.receive([Self.message("m3")], bot: "desk")
        #expect(try store.unhandled(bot: "desk").map(\.id) == ["m1", "m0", "m3"])
        #expect(try store.state(bot: "desk", channel: "user:bob")?.vars["name"] == "Bob")
        // The conversation's open ticket is still found, and once resolved a new one is opened.
        let ticket = try await store.open(Ticket(bot: "desk", channel: "user:alice", user: "alice", queue: "agents"))
        #expect(try await store.open(Ticket(bot: "desk", channel: "user:alice", user: "alice", queue: "agents")) == ticket)
        var resolved = ticket
        resolved.status = .resolved
        try await store.update(resolved)
        #expect(try await store.open(Ticket(bot: "desk", channel: "user:alice", user: "alice", queue: "agents")).number == ticket.number + 1)
        // Receiving wrote no counter.
        let inspect = try Connection(path: path)
        #expect(try inspect.scalar("SELECT COUNT(*) FROM sqlite_sequence WHERE name = 'engine_inbox'")?.int == 0)
        #expect(try inspect.scalar("SELECT COUNT(*) FROM sqlite_master WHERE name = 'engine_tickets_unresolved'")?.int == 0)
        #expect(try inspect.scalar("SELECT sql FROM sqlite_master WHERE name = 'engine_states'")?.string?.hasSuffix("WITHOUT ROWID") == true)
    }
}
