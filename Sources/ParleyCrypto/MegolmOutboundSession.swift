/// The sending side of a Megolm session: encrypts a room's messages; its session key is
/// shared with every device in the room over Olm (`m.room_key`).
///
/// Each message moves the ratchet one index on, so pickle it after every encrypt: reusing an
/// index after a crash would reuse a message key. Rotate (make a new one) per the room's
/// `m.room.encryption` settings and when a member leaves. Thread-safe: one lock.
public final class MegolmOutboundSession: Sendable {
    let guarded: Guarded<any OutboundGroupBackend>
    /// The session's id (`session_id` in `m.room.encrypted` and `m.room_key`).
    public let sessionID: String

    /// A new session, at message index 0.
    public convenience init() throws {
        try self.init(backend: ParleyCrypto.backend.createOutboundGroupSession())
    }

    /// The session stored by ``pickle(key:)``; a wrong `key` throws ``OlmError/Code/wrongPickleKey``.
    public convenience init(pickle: String, key: PickleKey) throws {
        try self.init(backend: ParleyCrypto.backend.unpickleOutboundGroupSession(pickle, key: key))
    }

    private init(backend: any OutboundGroupBackend) throws {
        sessionID = try backend.sessionID()
        guarded = Guarded(backend)
    }

    /// The session, encrypted with `key`, as text to store.
    public func pickle(key: PickleKey) throws -> String {
        try guarded.use { try $0.pickle(key: key) }
    }

    /// The (signed) session key to share, valid from the current ``messageIndex`` on: a device
    /// given it later cannot read earlier messages.
    public func sessionKey() throws -> String {
        try guarded.use { try $0.sessionKey() }
    }

    /// The index the next message will be encrypted with.
    public var messageIndex: UInt32 {
        guarded.use { $0.messageIndex }
    }

    /// Encrypts `plaintext` (for Matrix, the JSON of the room event) into base64 ciphertext.
    public func encrypt(_ plaintext: String) throws -> String {
        try guarded.use { try $0.encrypt(Array(plaintext.utf8)) }
    }
}
