import ParleyCore
import ParleyCrypto
import ParleyStore

extension MatrixCryptoStore {
    /// Writes a new inbound Olm session and the account it was made from, the account's
    /// one-time key already removed (`OlmAccount.removeOneTimeKeys(usedBy:)`), in one
    /// transaction: after a crash either both are stored or neither (and the pre-key message,
    /// not yet acknowledged, comes again), so a one-time key is never used twice and a
    /// session is never lost. Call it before decrypting anything else with the session.
    public func storeInbound(session: OlmSession, theirIdentityKey: String, account: OlmAccount) throws {
        let accountPickle = try account.pickle(key: key)
        let sessionPickle = try session.pickle(key: key)
        try storage {
            try db.transaction {
                try db.run("UPDATE crypto_account SET pickle = ? WHERE id = 1", [.text(accountPickle)])
                guard db.changes == 1 else {
                    throw ParleyError(.storage, "Matrix crypto store: no account stored to remove the one-time key from",
                                      context: ["path": StoreLocation(db.path).shown])
                }
                try writeSession(pickle: sessionPickle, id: session.sessionID, theirIdentityKey: theirIdentityKey)
            }
        }
        accountStored(account)
    }

    /// Writes an Olm session (new outbound, or after an encrypt or decrypt moved its ratchet)
    /// and marks it the most recently used. Store it before the message it encrypted is sent
    /// and before the message it decrypted is handed on.
    public func storeSession(_ session: OlmSession, theirIdentityKey: String) throws {
        let pickle = try session.pickle(key: key)
        try storage { try writeSession(pickle: pickle, id: session.sessionID, theirIdentityKey: theirIdentityKey) }
    }

    private func writeSession(pickle: String, id: String, theirIdentityKey: String) throws {
        try db.run("""
            INSERT INTO crypto_olm_sessions (sender_key, session_id, pickle, last_used) VALUES (?, ?, ?, ?)
            ON CONFLICT(sender_key, session_id) DO UPDATE SET pickle = excluded.pickle, last_used = excluded.last_used
            """, [.text(theirIdentityKey), .text(id), .text(pickle), timestamp])
    }

    /// The Olm sessions with the device whose curve25519 key is `theirIdentityKey`, most
    /// recently used first: the first is the one to encrypt with, and a message is tried
    /// against each in turn.
    public func olmSessions(theirIdentityKey: String) throws -> [OlmSession] {
        let pickles = try storage {
            try db.rows("SELECT pickle FROM crypto_olm_sessions WHERE sender_key = ? ORDER BY last_used DESC, rowid DESC",
                        [.text(theirIdentityKey)]).compactMap { $0[0].string }
        }
        return try pickles.map { try OlmSession(pickle: $0, key: key) }
    }
}
