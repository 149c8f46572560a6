import Foundation
import ParleyCore

extension MatrixCryptoStore {
    /// Records that `eventID` opened message `index` of the session, unless an event did
    /// before; returns the first event that did (`eventID` itself when new). One transaction.
    public func firstEvent(openingIndex index: UInt32, senderKey: String, sessionID: String, eventID: String,
                           at now: Date) throws -> String {
        try storage {
            try db.transaction {
                try db.run("""
                    INSERT OR IGNORE INTO crypto_message_indexes (sender_key, session_id, message_index, event_id, ts)
                    VALUES (?, ?, ?, ?, ?)
                    """, [.text(senderKey), .text(sessionID), .integer(Int64(index)), .text(eventID), .real(now.timeIntervalSince1970)])
                return try db.rows("""
                    SELECT event_id FROM crypto_message_indexes WHERE sender_key = ? AND session_id = ? AND message_index = ?
                    """, [.text(senderKey), .text(sessionID), .integer(Int64(index))]).first?[0].string ?? eventID
            }
        }
    }

    /// Forgets the indexes opened before `date` (a replay of a message that old is no longer caught).
    public func pruneMessageIndexes(before date: Date) throws {
        try storage { try db.run("DELETE FROM crypto_message_indexes WHERE ts < ?", [.real(date.timeIntervalSince1970)]) }
    }
}
