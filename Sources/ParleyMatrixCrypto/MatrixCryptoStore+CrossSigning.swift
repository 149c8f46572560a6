import ParleyCore
import ParleyCrypto

/// The account's cross-signing keys, by usage.
public struct CrossSigningKeys: Sendable {
    public let master: SigningKey
    public let selfSigning: SigningKey
    public let userSigning: SigningKey

    /// Three new keys.
    public static func generate() throws -> CrossSigningKeys {
        CrossSigningKeys(master: try SigningKey(), selfSigning: try SigningKey(), userSigning: try SigningKey())
    }

    public init(master: SigningKey, selfSigning: SigningKey, userSigning: SigningKey) {
        self.master = master
        self.selfSigning = selfSigning
        self.userSigning = userSigning
    }
}

extension MatrixCryptoStore {
    /// Writes the three keys (pickled) in one transaction: before they are uploaded, so the
    /// keys the server gets are the ones kept.
    public func storeCrossSigningKeys(_ keys: CrossSigningKeys) throws {
        let rows = [("master", try keys.master.pickle(key: key)), ("self_signing", try keys.selfSigning.pickle(key: key)),
                    ("user_signing", try keys.userSigning.pickle(key: key))]
        try storage {
            try db.transaction {
                for (usage, pickle) in rows {
                    try db.run("""
                        INSERT INTO crypto_cross_signing (usage, pickle) VALUES (?, ?)
                        ON CONFLICT(usage) DO UPDATE SET pickle = excluded.pickle
                        """, [.text(usage), .text(pickle)])
                }
            }
        }
    }

    /// The stored keys, or nil before ``storeCrossSigningKeys(_:)``.
    public func crossSigningKeys() throws -> CrossSigningKeys? {
        let rows = try storage { try db.rows("SELECT usage, pickle FROM crypto_cross_signing") }
        var pickles: [String: String] = [:]
        for row in rows { if let usage = row[0].string, let pickle = row[1].string { pickles[usage] = pickle } }
        guard let master = pickles["master"], let selfSigning = pickles["self_signing"], let userSigning = pickles["user_signing"]
        else { return nil }
        return CrossSigningKeys(master: try SigningKey(pickle: master, key: key), selfSigning: try SigningKey(pickle: selfSigning, key: key),
                                userSigning: try SigningKey(pickle: userSigning, key: key))
    }

    /// A recorded fact (`cross_signing_uploaded`, `device_signed`), or nil.
    public func state(_ name: String) throws -> String? {
        try storage { try db.rows("SELECT value FROM crypto_state WHERE name = ?", [.text(name)]).first?[0].string }
    }

    public func setState(_ name: String, _ value: String) throws {
        try storage {
            try db.run("INSERT INTO crypto_state (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value",
                       [.text(name), .text(value)])
        }
    }
}
