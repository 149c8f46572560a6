/// A Matrix device's Olm account: its identity keys, the one-time keys and fallback key other
/// devices claim to start a session with it, and its signing key.
///
/// The account is the device: pickle it (``pickle(key:)``) after every change that must
/// survive a restart — generating keys, marking them published, and above all removing a
/// used one-time key (``removeOneTimeKeys(usedBy:)``), so a key is never used twice.
/// Thread-safe: every use goes through one lock.
public final class OlmAccount: Sendable {
    let guarded: Guarded<any AccountBackend>
    /// The device's curve25519 and ed25519 public keys; fixed for the account's life.
    public let identityKeys: IdentityKeys

    /// A new account with fresh identity keys (and no one-time keys yet).
    public convenience init() throws {
        try self.init(backend: ParleyCrypto.backend.createAccount())
    }

    /// The account stored by ``pickle(key:)``. A wrong `key` throws an ``OlmError`` with
    /// ``OlmError/Code/wrongPickleKey``.
    public convenience init(pickle: String, key: PickleKey) throws {
        try self.init(backend: ParleyCrypto.backend.unpickleAccount(pickle, key: key))
    }

    private init(backend: any AccountBackend) throws {
        identityKeys = try KeyLists.identityKeys(backend.identityKeysJSON())
        guarded = Guarded(backend)
    }

    /// The account, encrypted with `key`, as text to store.
    public func pickle(key: PickleKey) throws -> String {
        try guarded.use { try $0.pickle(key: key) }
    }

    /// The base64 ed25519 signature of `message` (for Matrix, its canonical JSON).
    public func sign(_ message: String) throws -> String {
        try guarded.use { try $0.sign(Array(message.utf8)) }
    }

    /// How many one-time keys the account keeps at most; generating more drops the oldest.
    /// Matrix clients keep about half of this uploaded.
    public var maxNumberOfOneTimeKeys: Int {
        guarded.use { $0.maxOneTimeKeys }
    }

    /// Makes `count` new one-time keys, listed by ``oneTimeKeys()`` until marked published.
    public func generateOneTimeKeys(count: Int) throws {
        guard count >= 0 else { throw OlmError(operation: "generate \(count) one-time keys", code: .invalidArgument) }
        try guarded.use { try $0.generateOneTimeKeys(count: count) }
    }

    /// The one-time keys not yet published: key id → curve25519 public key.
    public func oneTimeKeys() throws -> [String: String] {
        try KeyLists.curve25519Keys(guarded.use { try $0.oneTimeKeysJSON() }, operation: "parse one-time keys")
    }

    /// Marks the listed one-time keys and the fallback key as published (after the upload
    /// succeeded), so they are not listed again.
    public func markKeysAsPublished() throws {
        try guarded.use { try $0.markKeysAsPublished() }
    }

    /// Makes a new fallback key (used when a device has run out of one-time keys); the
    /// previous one is kept until ``forgetOldFallbackKey()``.
    public func generateFallbackKey() throws {
        try guarded.use { try $0.generateFallbackKey() }
    }

    /// The fallback key if not yet published: key id → curve25519 public key (empty if none).
    public func unpublishedFallbackKey() throws -> [String: String] {
        try KeyLists.curve25519Keys(guarded.use { try $0.unpublishedFallbackKeyJSON() }, operation: "parse fallback key")
    }

    /// Drops the fallback key before the current one, once sessions made from it have arrived.
    public func forgetOldFallbackKey() {
        guarded.use { $0.forgetOldFallbackKey() }
    }

    /// Removes the one-time key `session` was made from (an inbound session), so a replayed
    /// pre-key message cannot make a second session from it. Throws
    /// ``OlmError/Code/badMessageKeyID`` if the key is already gone.
    public func removeOneTimeKeys(usedBy session: OlmSession) throws {
        try guarded.use { account in
            try session.guarded.use { try account.removeOneTimeKeys(usedBy: $0) }
        }
    }
}
