import Foundation
import ParleyBots
import ParleyCore
import ParleyStore
import Testing
import ParleyTesting

/// The customer's card and the hand-off note a ticket keeps (for the agents' console): optional
/// fields of the JSON the stores keep, so a ticket stored before them still loads, with no
/// migration; a move's successor carries the card and the move's note.
@Suite struct TicketCardFieldsTests {
    static let card = VCardContent(user: "alice", name: "Alice Liddell", phone: "+1 555 0100", email: "alice@example.org")

    @Test func aTicketStoredWithoutTheCardAndNoteStillLoadsFromSQLite() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ticket-fields-\(UUID().uuidString).db").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try DatabaseBotStore(path: path)
        let opened = try await store.open(Ticket(bot: "desk", channel: "user:alice", user: "alice", queue: "agents",
                                           openedAt: Date(timeIntervalSince1970: 1_800_000_000), customer: Self.card, note: "Refund"))
        #expect(try store.tickets(queue: "agents", number: opened.number).first?.customer == Self.card)
        #expect(try store.tickets(queue: "agents", number: opened.number).first?.note == "Refund")
        // The row as an older version wrote it: the same JSON without the two fields.
        let connection = try Connection(path: path)
        try connection.run("UPDATE engine_tickets SET ticket = json_remove(ticket, '$.customer', '$.note')")
        let stored = try #require(try connection.rows("SELECT ticket FROM engine_tickets").first?.first?.string)
        #expect(!stored.contains("customer") && !stored.contains("note"))
        let old = try #require(try store.tickets(queue: "agents", number: opened.number).first)
        #expect(old.customer == nil && old.note == nil)
        #expect(old.user == "alice" && old.status == .open && old.openedAt == opened.openedAt)
    }

    @Test func aLiteralTicketOfAnOlderVersionDecodes() async throws {
        let json = #"{"number":3,"bot":"desk","channel":"user:bob","user":"bob","queue":"agents","status":"taken","agent":"nina"}"#
        let ticket = try JSONDecoder().decode(Ticket.self, from: Data(json.utf8))
        #expect(ticket.number == 3 && ticket.agent == "nina" && ticket.customer == nil && ticket.note == nil)
    }

    @Test(arguments: TestDatabase.kinds) func aMovedTicketCarriesTheCardAndTheMovesNoteInBothStores(database: TestDatabase) async throws {
        for store in [MemoryBotStore(), try DatabaseBotStore(path: database.location("ticket-move"))] as [any BotStore] {
            let first = try await store.open(Ticket(bot: "desk", channel: "user:alice", user: "alice", queue: "agents", customer: Self.card, note: "Refund"))
            let now = Date(timeIntervalSince1970: 1_800_000_100)
            let moved = try await store.transfer(first, to: "supervisors", note: "Escalated from agents #1", at: now)
            #expect(moved.customer == Self.card && moved.note == "Escalated from agents #1" && moved.movedFrom == "agents#\(first.number)")
            let old = try #require(try store.tickets(queue: "agents", number: first.number).first)
            #expect(old.status == .resolved && old.movedTo == "supervisors#\(moved.number)" && old.note == "Refund")
            #expect(try store.tickets(queue: "supervisors", number: moved.number).first == moved)
        }
    }
}
