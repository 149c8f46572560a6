/// An ed25519 key that only signs: Matrix's cross-signing keys (master, self-signing,
/// user-signing) are these. Its private part leaves memory only pickled (encrypted with a
/// ``PickleKey``). Thread-safe: one lock.
public final class SigningKey: Sendable {
    let guarded: Guarded<any SigningKeyBackend>
    /// The public key, unpadded base64 (the key id in Matrix is `ed25519:<publicKey>`).
    public let publicKey: String

    /// A new key from fresh random bytes.
    public convenience init() throws {
        try self.init(backend: ParleyCrypto.backend.createSigningKey())
    }

    /// The key stored by ``pickle(key:)``; a wrong `key` throws ``OlmError/Code/wrongPickleKey``.
    public convenience init(pickle: String, key: PickleKey) throws {
        try self.init(backend: ParleyCrypto.backend.unpickleSigningKey(pickle, key: key))
    }

    private init(backend: any SigningKeyBackend) {
        publicKey = backend.publicKey
        guarded = Guarded(backend)
    }

    /// The ed25519 signature of `message`'s UTF-8 bytes, unpadded base64.
    public func sign(_ message: String) throws -> String {
        try guarded.use { try $0.sign(Array(message.utf8)) }
    }

    /// The key, encrypted with `key`, as text to store.
    public func pickle(key: PickleKey) throws -> String {
        try guarded.use { try $0.pickle(key: key) }
    }
}
