import Foundation
import ParleyStore

extension DatabaseBotStore {
    /// The JSON field `key` of the text column `column`, as text (SQL null when absent or
    /// null): `json_extract` on SQLite, `->>` on PostgreSQL.
    func field(_ column: String, _ key: String) -> String {
        connection.isPostgres ? "(\(column)::json ->> '\(key)')" : "json_extract(\(column), '$.\(key)')"
    }

    /// The JSON number `key` of the text column `column`.
    func number(_ column: String, _ key: String) -> String {
        connection.isPostgres ? "CAST(\(column)::json ->> '\(key)' AS DOUBLE PRECISION)" : "json_extract(\(column), '$.\(key)')"
    }

    public func summary() throws -> BotStoreSummary {
        try locked {
            var summary = BotStoreSummary()
            // Dates are stored as JSONEncoder writes them: seconds since the 2001 reference date.
            for row in try connection.rows("""
                SELECT queue, \(field("ticket", "status")), COUNT(*),
                       MIN(CASE WHEN \(field("ticket", "status")) = 'open' THEN \(number("ticket", "openedAt")) END)
                FROM engine_tickets GROUP BY 1, 2
                """, []) {
                guard let queue = row[0].string, let status = row[1].string.flatMap(Ticket.Status.init(rawValue:)) else { continue }
                summary.tickets[.init(queue: queue, status: status)] = row[2].int ?? 0
                if let opened = row[3].double { summary.oldestOpen[queue] = Date(timeIntervalSinceReferenceDate: opened) }
            }
            for row in try connection.rows("""
                SELECT bot, COUNT(*) FROM engine_states WHERE \(field("state", "waiting")) IS NOT NULL GROUP BY bot
                """, []) {
                if let bot = row[0].string { summary.activeFlows[bot] = row[1].int ?? 0 }
            }
            return summary
        }
    }

    public func listTickets(queue: String?, statuses: Set<Ticket.Status>, limit: Int) throws -> [Ticket] {
        try locked {
            var clauses: [String] = [], values: [StoreValue] = []
            if let queue {
                clauses.append("queue = ?")
                values.append(.text(queue))
            }
            if !statuses.isEmpty {
                clauses.append(field("ticket", "status") + " IN (" + statuses.map { _ in "?" }.joined(separator: ", ") + ")")
                values += statuses.sorted { $0.rawValue < $1.rawValue }.map { .text($0.rawValue) }
            }
            let filter = clauses.isEmpty ? "" : "WHERE " + clauses.joined(separator: " AND ")
            return try connection.rows("SELECT ticket FROM engine_tickets \(filter) ORDER BY rowid DESC LIMIT ?",
                                       values + [.integer(Int64(max(0, limit)))]).compactMap { row in
                guard let text = row[0].string else { return nil }
                return try decoder.decode(Ticket.self, from: Data(text.utf8))
            }
        }
    }

    public func waitingAhead(of number: Int, queue: String) throws -> Int {
        try locked {
            try connection.scalar("""
                SELECT COUNT(*) FROM engine_tickets
                WHERE queue = ? AND unresolved = 1 AND number < ? AND \(field("ticket", "status")) = 'open'
                """, [.text(queue), .integer(Int64(number))])?.int ?? 0
        }
    }

    public func takenCounts(queue: String) throws -> [String: Int] {
        try locked {
            var counts: [String: Int] = [:]
            for row in try connection.rows("""
                SELECT \(field("ticket", "agent")), COUNT(*) FROM engine_tickets
                WHERE queue = ? AND unresolved = 1 AND \(field("ticket", "status")) = 'taken' GROUP BY 1
                """, [.text(queue)]) {
                if let agent = row[0].string, let count = row[1].int { counts[agent] = count }
            }
            return counts
        }
    }
}
