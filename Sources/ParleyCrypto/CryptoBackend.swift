/// The one boundary between Parley and the crypto library: the public types of this module
/// call only these protocols, and `LibOlmBackend` is the only conformance. A vodozemac (or
/// any other) backend replaces libolm by conforming to them; nothing above changes.
///
/// Inputs and outputs are the Matrix wire forms (unpadded base64 keys and ciphertexts, olm's
/// JSON key lists), so a backend's own types never leak. Objects are not thread-safe; the
/// public types serialise every use through their lock (`Guarded`). Errors are ``OlmError``.
protocol CryptoBackend: Sendable {
    /// Name and version, e.g. `libolm 3.2.13`.
    var libraryVersion: String { get }

    func createAccount() throws -> any AccountBackend
    func unpickleAccount(_ pickle: String, key: PickleKey) throws -> any AccountBackend
    func unpickleSession(_ pickle: String, key: PickleKey) throws -> any SessionBackend
    func createOutboundGroupSession() throws -> any OutboundGroupBackend
    func unpickleOutboundGroupSession(_ pickle: String, key: PickleKey) throws -> any OutboundGroupBackend
    /// An inbound Megolm session from an outbound session's (signed) session key.
    func inboundGroupSession(sessionKey: String) throws -> any InboundGroupBackend
    /// An inbound Megolm session from another inbound session's export.
    func importInboundGroupSession(exportedKey: String) throws -> any InboundGroupBackend
    func unpickleInboundGroupSession(_ pickle: String, key: PickleKey) throws -> any InboundGroupBackend
    /// A new ed25519 signing key (a cross-signing key), and one stored by its pickle.
    func createSigningKey() throws -> any SigningKeyBackend
    func unpickleSigningKey(_ pickle: String, key: PickleKey) throws -> any SigningKeyBackend
    /// SHA-256 of `input`, unpadded base64.
    func sha256(_ input: [UInt8]) throws -> String
    /// True when `signature` is `key`'s ed25519 signature of `message`; false when it is not;
    /// throws when the key or signature is malformed.
    func verifyEd25519(key: String, message: [UInt8], signature: String) throws -> Bool
}

/// A device's long-term identity (curve25519 + ed25519), its one-time keys and fallback key.
protocol AccountBackend: AnyObject {
    /// `{"curve25519": "...", "ed25519": "..."}`
    func identityKeysJSON() throws -> String
    func sign(_ message: [UInt8]) throws -> String
    var maxOneTimeKeys: Int { get }
    func generateOneTimeKeys(count: Int) throws
    /// `{"curve25519": {"<key id>": "<key>", ...}}`: the keys not yet marked published.
    func oneTimeKeysJSON() throws -> String
    func markKeysAsPublished() throws
    func generateFallbackKey() throws
    /// Same shape as ``oneTimeKeysJSON()``: the fallback key if not yet published.
    func unpublishedFallbackKeyJSON() throws -> String
    func forgetOldFallbackKey()
    func outboundSession(theirIdentityKey: String, theirOneTimeKey: String) throws -> any SessionBackend
    /// From a pre-key message; `theirIdentityKey` (when known) must match the sender's.
    func inboundSession(preKeyMessage: String, theirIdentityKey: String?) throws -> any SessionBackend
    /// Removes the one-time key `session` was made from, so it is never used twice.
    func removeOneTimeKeys(usedBy session: any SessionBackend) throws
    func pickle(key: PickleKey) throws -> String
}

/// One Olm (double ratchet) session between two devices.
protocol SessionBackend: AnyObject {
    func sessionID() throws -> String
    var hasReceivedMessage: Bool { get }
    func matchesInbound(preKeyMessage: String, theirIdentityKey: String?) throws -> Bool
    /// The message type (0 pre-key, 1 normal) and the base64 body.
    func encrypt(_ plaintext: [UInt8]) throws -> (type: Int, body: String)
    func decrypt(type: Int, body: String) throws -> [UInt8]
    func pickle(key: PickleKey) throws -> String
}

/// The sending side of a Megolm session (one per encrypted room at a time).
protocol OutboundGroupBackend: AnyObject {
    func sessionID() throws -> String
    /// The signed session key to share over Olm, for the current message index.
    func sessionKey() throws -> String
    var messageIndex: UInt32 { get }
    func encrypt(_ plaintext: [UInt8]) throws -> String
    func pickle(key: PickleKey) throws -> String
}

/// The receiving side of a Megolm session.
protocol InboundGroupBackend: AnyObject {
    func sessionID() throws -> String
    var firstKnownIndex: UInt32 { get }
    func decrypt(_ body: String) throws -> (plaintext: [UInt8], messageIndex: UInt32)
    /// The session from `messageIndex` on, to import elsewhere.
    func export(at messageIndex: UInt32) throws -> String
    func pickle(key: PickleKey) throws -> String
}

/// An ed25519 key pair that only signs (Matrix cross-signing: master, self-signing, user-signing).
protocol SigningKeyBackend: AnyObject {
    /// Unpadded base64.
    var publicKey: String { get }
    func sign(_ message: [UInt8]) throws -> String
    func pickle(key: PickleKey) throws -> String
}
