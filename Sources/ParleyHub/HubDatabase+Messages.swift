import Foundation
import ParleyCore
import ParleyStore

extension HubDatabase {
    private static let insertMessage = """
        INSERT INTO hub_messages (channel, seq, client_id, sender, time, payload, flags, reply, visible_to, extensions)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    private static let selectMessages = """
        SELECT seq, client_id, sender, time, payload, flags, reply, visible_to, extensions
        FROM hub_messages WHERE channel = ? AND seq > ? ORDER BY seq LIMIT ?
        """

    /// Writes one group commit: new channels, messages (not the noPersist ones), and the
    /// last seq of channels whose batch ends in a noPersist message (so numbering continues
    /// after a reopen past it). Every page a commit touches is written to the WAL, so the
    /// channel rows are left alone otherwise: a reopen takes the seq from the messages.
    static func write(_ batch: HubState.Batch, to connection: Connection) throws {
        for channel in batch.newChannels {
            try insertChannel(connection, index: channel.index, key: channel.key, name: nil,
                              members: channel.members.map { ($0, 0) })
        }
        let insert = try connection.prepare(insertMessage)
        for write in batch.writes where !write.message.flags.contains(.noPersist) {
            try insert.run(MessageRow.values(of: write.message, channel: write.channel))
        }
        guard !batch.unstoredSeqs.isEmpty else { return }
        let bump = try connection.prepare("UPDATE hub_channels SET seq = max(seq, ?) WHERE number = ?")
        for (channel, seq) in batch.unstoredSeqs { try bump.run([.integer(seq), .integer(Int64(channel))]) }
    }

    /// Stored messages of a channel with `seq > after`, oldest first, with their reactions.
    func messages(channel: Int, after: Int64, limit: Int) throws -> [HubMessage] {
        try read { connection in
            var messages: [HubMessage] = []
            try connection.prepare(Self.selectMessages).query([.integer(Int64(channel)), .integer(after), .integer(Int64(clamping: limit))]) { row in
                messages.append(try MessageRow.message(from: row))
            }
            guard let first = messages.first, let last = messages.last else { return messages }
            var positions: [Int64: Int] = [:]
            for (position, message) in messages.enumerated() { positions[message.seq] = position }
            try connection.prepare(
                "SELECT seq, emoji, user FROM hub_reactions WHERE channel = ? AND seq >= ? AND seq <= ? ORDER BY seq, position"
            ).query([.integer(Int64(channel)), .integer(first.seq), .integer(last.seq)]) { row in
                guard let seq = row[0].int64, let position = positions[seq],
                      let emoji = row[1].string, let user = row[2].string else { return }
                _ = HubState.apply(emoji, user: user, added: true, to: &messages[position].reactions)
            }
            return messages
        }
    }

    /// Adds or removes a reaction on a stored message `user` may see. Returns the message
    /// when something changed.
    func setReaction(_ emoji: String, at seq: Int64, in channel: Int, user: String, added: Bool) throws -> HubMessage? {
        guard let message = try messages(channel: channel, after: seq - 1, limit: 1).first,
              message.seq == seq, message.isVisible(to: user) else {
            throw ParleyError(.notFound, "no such message", context: ["message": HubMessageID.make(channel: channel, seq: seq)])
        }
        let key: [StoreValue] = [.integer(Int64(channel)), .integer(seq), .text(emoji), .text(user)]
        let changed = try write { connection in
            if added {
                try connection.run("""
                    INSERT OR IGNORE INTO hub_reactions (channel, seq, emoji, user, position)
                    VALUES (?1, ?2, ?3, ?4, (SELECT COALESCE(MAX(position), 0) + 1 FROM hub_reactions WHERE channel = ?1 AND seq = ?2))
                    """, key)
            } else {
                try connection.run("DELETE FROM hub_reactions WHERE channel = ? AND seq = ? AND emoji = ? AND user = ?", key)
            }
            return connection.changes > 0
        }
        return changed ? message : nil
    }

    /// The receipt of `sender`'s message `clientMessageID` in `channel`, if stored: for a
    /// resend older than the receipts kept in memory. Reads the channel's rows (no index on the
    /// client id: every send would pay to keep one up, for a look-up that only a resend missing
    /// the memory window makes).
    func receipt(channel: Int, sender: String, clientMessageID: UUID) throws -> SendReceipt? {
        try read { connection in
            let rows = try connection.rows("SELECT seq, time FROM hub_messages WHERE channel = ? AND client_id = ? AND sender = ? LIMIT 1",
                                           [.integer(Int64(channel)), .blob(MessageRow.bytes(of: clientMessageID)), .text(sender)])
            guard let row = rows.first, let seq = row[0].int64, let time = row[1].double else { return nil }
            return HubState.receipt(index: channel, seq: seq, time: Date(timeIntervalSince1970: time))
        }
    }

    /// How many stored messages carry `clientMessageID` (an inspection helper for tests).
    func count(of clientMessageID: UUID) throws -> Int {
        try read { try $0.scalar("SELECT COUNT(*) FROM hub_messages WHERE client_id = ?", [.blob(MessageRow.bytes(of: clientMessageID))])?.int ?? 0 }
    }
}
