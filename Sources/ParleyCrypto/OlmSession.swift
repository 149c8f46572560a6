/// An Olm session: the encrypted channel between this device and one other, used for
/// to-device messages (above all `m.room_key`, which shares Megolm session keys).
///
/// Made outbound from a claimed one-time key, or inbound from the other side's first
/// (pre-key) message. Pickle it after each encrypt and decrypt: the ratchet moves on every
/// message. Thread-safe: every use goes through one lock.
public final class OlmSession: Sendable {
    let guarded: Guarded<any SessionBackend>
    /// The session's id, the same on both sides.
    public let sessionID: String

    /// A session to the device with curve25519 `theirIdentityKey`, from one of its one-time
    /// (or fallback) keys claimed with `/keys/claim`.
    public convenience init(outboundFrom account: OlmAccount, theirIdentityKey: String, theirOneTimeKey: String) throws {
        try self.init(backend: account.guarded.use {
            try $0.outboundSession(theirIdentityKey: theirIdentityKey, theirOneTimeKey: theirOneTimeKey)
        })
    }

    /// The session a pre-key `message` starts. With `theirIdentityKey` (the sender's
    /// curve25519 key from the event), a message from another device is refused. Call
    /// ``OlmAccount/removeOneTimeKeys(usedBy:)`` afterwards, and decrypt `message` with the
    /// new session.
    public convenience init(inboundFrom account: OlmAccount, message: OlmMessage, theirIdentityKey: String? = nil) throws {
        guard message.kind == .preKey else {
            throw OlmError(operation: "create inbound Olm session from a normal message", code: .badMessageFormat)
        }
        try self.init(backend: account.guarded.use {
            try $0.inboundSession(preKeyMessage: message.body, theirIdentityKey: theirIdentityKey)
        })
    }

    /// The session stored by ``pickle(key:)``; a wrong `key` throws ``OlmError/Code/wrongPickleKey``.
    public convenience init(pickle: String, key: PickleKey) throws {
        try self.init(backend: ParleyCrypto.backend.unpickleSession(pickle, key: key))
    }

    private init(backend: any SessionBackend) throws {
        sessionID = try backend.sessionID()
        guarded = Guarded(backend)
    }

    /// The session, encrypted with `key`, as text to store.
    public func pickle(key: PickleKey) throws -> String {
        try guarded.use { try $0.pickle(key: key) }
    }

    /// True once a message from the other side was decrypted (from then on this side sends
    /// normal messages, not pre-key ones).
    public var hasReceivedMessage: Bool {
        guarded.use { $0.hasReceivedMessage }
    }

    /// True when the pre-key `message` belongs to this session: how a receiver finds the
    /// session for a second pre-key message instead of creating a new one.
    public func matchesInbound(_ message: OlmMessage, theirIdentityKey: String? = nil) throws -> Bool {
        guard message.kind == .preKey else { return false }
        return try guarded.use { try $0.matchesInbound(preKeyMessage: message.body, theirIdentityKey: theirIdentityKey) }
    }

    /// Encrypts `plaintext` (for Matrix, the JSON of the to-device payload).
    public func encrypt(_ plaintext: String) throws -> OlmMessage {
        let (type, body) = try guarded.use { try $0.encrypt(Array(plaintext.utf8)) }
        guard let message = OlmMessage(type: type, body: body) else {
            throw OlmError(operation: "encrypt Olm message", code: .unexpectedOutput)
        }
        return message
    }

    /// Decrypts `message`; a tampered message, or one for another session, throws
    /// (``OlmError/Code/badMessageMAC``) and leaves the session as it was.
    public func decrypt(_ message: OlmMessage) throws -> String {
        var bytes = try guarded.use { try $0.decrypt(type: message.kind.rawValue, body: message.body) }
        defer { Secrets.wipe(&bytes) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw OlmError(operation: "decrypt Olm message", code: .invalidUTF8)
        }
        return text
    }
}
