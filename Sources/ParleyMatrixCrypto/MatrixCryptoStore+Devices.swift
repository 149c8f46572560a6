import Foundation

extension MatrixCryptoStore {
    /// The public parts of a device, as `keys_json` holds them.
    private struct DeviceKeysRecord: Codable {
        let curve25519: String
        let ed25519: String
        let algorithms: [String]
    }

    /// Replaces the stored devices of `userID` with `devices` (verified by
    /// `MatrixKeyDirectory.query`) and marks the user tracked and clean, in one transaction.
    public func storeDevices(_ devices: [MatrixDevice], of userID: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let rows = try devices.filter { $0.userID == userID }.map { device in
            let record = DeviceKeysRecord(curve25519: device.curve25519, ed25519: device.ed25519, algorithms: device.algorithms)
            return (device.deviceID, String(decoding: try encoder.encode(record), as: UTF8.self))
        }
        try storage {
            try db.transaction {
                try db.run("""
                    INSERT INTO crypto_tracked_users (user_id, dirty) VALUES (?, 0)
                    ON CONFLICT(user_id) DO UPDATE SET dirty = 0
                    """, [.text(userID)])
                try db.run("DELETE FROM crypto_devices WHERE user_id = ?", [.text(userID)])
                for (deviceID, json) in rows {
                    try db.run("INSERT INTO crypto_devices (user_id, device_id, keys_json) VALUES (?, ?, ?)",
                               [.text(userID), .text(deviceID), .text(json)])
                }
            }
        }
    }

    /// The stored devices of `userID`, by device id.
    public func devices(of userID: String) throws -> [MatrixDevice] {
        let rows = try storage {
            try db.rows("SELECT device_id, keys_json FROM crypto_devices WHERE user_id = ? ORDER BY device_id", [.text(userID)])
        }
        return try rows.compactMap { row in
            guard let deviceID = row[0].string, let json = row[1].data else { return nil }
            let record = try JSONDecoder().decode(DeviceKeysRecord.self, from: json)
            return MatrixDevice(userID: userID, deviceID: deviceID, curve25519: record.curve25519, ed25519: record.ed25519,
                                algorithms: record.algorithms)
        }
    }

    /// Marks `users` dirty (`device_lists.changed` in `/sync`, or a user newly met in an
    /// encrypted room): their devices are queried again before the next key share.
    public func markDirty(_ users: [String]) throws {
        try storage {
            try db.transaction {
                for user in users {
                    try db.run("""
                        INSERT INTO crypto_tracked_users (user_id, dirty) VALUES (?, 1)
                        ON CONFLICT(user_id) DO UPDATE SET dirty = 1
                        """, [.text(user)])
                }
            }
        }
    }

    /// Stops tracking `users` and forgets their devices (`device_lists.left`).
    public func forget(_ users: [String]) throws {
        try storage {
            try db.transaction {
                for user in users { try db.run("DELETE FROM crypto_tracked_users WHERE user_id = ?", [.text(user)]) }
            }
        }
    }

    /// The users whose device lists must be queried again, sorted.
    public func dirtyUsers() throws -> [String] {
        try storage { try db.rows("SELECT user_id FROM crypto_tracked_users WHERE dirty = 1 ORDER BY user_id").compactMap { $0[0].string } }
    }
}
