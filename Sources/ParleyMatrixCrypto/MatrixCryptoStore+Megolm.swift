import Foundation
import ParleyCrypto

/// An inbound Megolm session as stored: the session and who shared it.
public struct StoredInboundGroupSession: Sendable {
    public let session: MegolmInboundSession
    /// The curve25519 key of the device that shared it (the Olm sender of its `m.room_key`).
    public let senderKey: String
    /// The user whose device shared it.
    public let sharedBy: String
}

/// A room's outbound Megolm session as stored, with what rotation reads.
public struct StoredOutboundGroupSession: Sendable {
    public let session: MegolmOutboundSession
    /// When the session was first stored (`rotation_period_ms` counts from here).
    public let createdAt: Date
    /// Messages encrypted with it (`rotation_period_msgs` counts these).
    public let messagesSent: Int
}

extension MatrixCryptoStore {
    /// Writes an inbound Megolm session from an `m.room_key` (or a forwarded key). The order
    /// callers must keep: store the session first, then decrypt and hand on the messages it
    /// opens, then acknowledge the to-device event (advance the `/sync` token). A crash before
    /// the write gets the key again; a crash after it finds the session stored.
    ///
    /// A session already stored for the same room, sender and id is kept if it starts at an
    /// earlier or the same index (a later copy would lose messages it can read).
    public func storeInboundGroupSession(_ session: MegolmInboundSession, roomID: String, senderKey: String,
                                         sharedBy: String) throws {
        let pickle = try session.pickle(key: key)
        try storage {
            try db.run("""
                INSERT INTO crypto_inbound_group_sessions (room_id, sender_key, session_id, pickle, first_known_index, shared_by)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT(room_id, sender_key, session_id) DO UPDATE SET
                    pickle = excluded.pickle, first_known_index = excluded.first_known_index, shared_by = excluded.shared_by
                WHERE excluded.first_known_index < crypto_inbound_group_sessions.first_known_index
                """, [.text(roomID), .text(senderKey), .text(session.sessionID), .text(pickle),
                      .integer(Int64(session.firstKnownIndex)), .text(sharedBy)])
        }
    }

    /// The inbound session `sessionID` of `roomID` from the device `senderKey` (the
    /// `m.room.encrypted` event's `sender_key`), or nil when its key has not arrived.
    public func inboundGroupSession(roomID: String, senderKey: String, sessionID: String) throws -> StoredInboundGroupSession? {
        let row = try storage {
            try db.rows("""
                SELECT pickle, shared_by FROM crypto_inbound_group_sessions
                WHERE room_id = ? AND sender_key = ? AND session_id = ?
                """, [.text(roomID), .text(senderKey), .text(sessionID)]).first
        }
        guard let row, let pickle = row[0].string, let sharedBy = row[1].string else { return nil }
        return StoredInboundGroupSession(session: try MegolmInboundSession(pickle: pickle, key: key),
                                         senderKey: senderKey, sharedBy: sharedBy)
    }

    /// Writes the room's outbound session: after creating it (before its key is shared) and
    /// after every encrypt, before the message is sent, so a restart never reuses a message
    /// index. A new session (another id) replaces the room's old one and restarts its clock;
    /// the same session keeps its creation time. `messagesSent` is its message index.
    public func storeOutboundGroupSession(_ session: MegolmOutboundSession, roomID: String) throws {
        let pickle = try session.pickle(key: key)
        try storage {
            try db.run("""
                INSERT INTO crypto_outbound_group_sessions (room_id, session_id, pickle, created_at, messages_sent)
                VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(room_id) DO UPDATE SET
                    created_at = CASE WHEN crypto_outbound_group_sessions.session_id = excluded.session_id
                        THEN crypto_outbound_group_sessions.created_at ELSE excluded.created_at END,
                    session_id = excluded.session_id, pickle = excluded.pickle, messages_sent = excluded.messages_sent
                """, [.text(roomID), .text(session.sessionID), .text(pickle), timestamp,
                      .integer(Int64(session.messageIndex))])
        }
    }

    /// The room's outbound session, or nil when it has none (or it was discarded).
    public func outboundGroupSession(roomID: String) throws -> StoredOutboundGroupSession? {
        let row = try storage {
            try db.rows("SELECT pickle, created_at, messages_sent FROM crypto_outbound_group_sessions WHERE room_id = ?",
                        [.text(roomID)]).first
        }
        guard let row, let pickle = row[0].string, let created = row[1].double, let sent = row[2].int else { return nil }
        return StoredOutboundGroupSession(session: try MegolmOutboundSession(pickle: pickle, key: key),
                                          createdAt: Date(timeIntervalSince1970: created), messagesSent: sent)
    }

    /// Forgets the room's outbound session (a member left: the next message starts a new one).
    public func discardOutboundGroupSession(roomID: String) throws {
        try storage {
            try db.transaction {
                try db.run("DELETE FROM crypto_outbound_group_sessions WHERE room_id = ?", [.text(roomID)])
                try db.run("DELETE FROM crypto_outbound_shared WHERE room_id = ?", [.text(roomID)])
            }
        }
    }
}
