import ParleyCore

extension MatrixCryptoStore {
    /// Records that the room's session `sessionID` was shared with `devices` (their
    /// `m.room_key` was accepted by the homeserver), in one transaction. Call it after the
    /// to-device send succeeded: a crash before it shares the key again, which is harmless.
    public func markShared(roomID: String, sessionID: String, with devices: [MatrixDevice]) throws {
        try storage {
            try db.transaction {
                for device in devices {
                    try db.run("""
                        INSERT OR IGNORE INTO crypto_outbound_shared (room_id, session_id, user_id, device_id) VALUES (?, ?, ?, ?)
                        """, [.text(roomID), .text(sessionID), .text(device.userID), .text(device.deviceID)])
                }
            }
        }
    }

    /// The devices (`user_id`, `device_id`) the room's session `sessionID` was shared with.
    public func sharedDevices(roomID: String, sessionID: String) throws -> Set<MatrixDeviceID> {
        let rows = try storage {
            try db.rows("SELECT user_id, device_id FROM crypto_outbound_shared WHERE room_id = ? AND session_id = ?",
                        [.text(roomID), .text(sessionID)])
        }
        return Set(rows.compactMap { row in
            guard let user = row[0].string, let device = row[1].string else { return nil }
            return MatrixDeviceID(userID: user, deviceID: device)
        })
    }

    /// Of `users`, those whose devices are not tracked yet or changed (to query), sorted.
    public func usersToQuery(among users: [String]) throws -> [String] {
        try storage {
            try Set(users).sorted().filter { user in
                try db.rows("SELECT dirty FROM crypto_tracked_users WHERE user_id = ?", [.text(user)]).first?[0].int ?? 1 != 0
            }
        }
    }
}

/// A device by its owner and id.
public struct MatrixDeviceID: Sendable, Hashable {
    public let userID: String
    public let deviceID: String

    public init(userID: String, deviceID: String) {
        self.userID = userID
        self.deviceID = deviceID
    }
}
