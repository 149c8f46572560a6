/// A Megolm message decrypted: its text and the index it was encrypted at.
public struct MegolmDecrypted: Sendable, Equatable {
    public let plaintext: String
    /// The message's index in its session. A receiver remembers (event id, index) pairs to
    /// refuse a replayed index with another event id.
    public let messageIndex: UInt32

    public init(plaintext: String, messageIndex: UInt32) {
        self.plaintext = plaintext
        self.messageIndex = messageIndex
    }
}

/// The receiving side of a Megolm session: decrypts a room's messages from one sender's
/// device, from the session key it shared (or an export of another inbound session).
/// Thread-safe: one lock.
public final class MegolmInboundSession: Sendable {
    let guarded: Guarded<any InboundGroupBackend>
    /// The session's id, the same as its outbound session's.
    public let sessionID: String

    /// The session a shared (signed) session key starts, from the key's index on.
    public convenience init(sessionKey: String) throws {
        try self.init(backend: ParleyCrypto.backend.inboundGroupSession(sessionKey: sessionKey))
    }

    /// The session an ``export(at:)`` describes (a forwarded or backed-up key).
    public convenience init(importing exportedKey: String) throws {
        try self.init(backend: ParleyCrypto.backend.importInboundGroupSession(exportedKey: exportedKey))
    }

    /// The session stored by ``pickle(key:)``; a wrong `key` throws ``OlmError/Code/wrongPickleKey``.
    public convenience init(pickle: String, key: PickleKey) throws {
        try self.init(backend: ParleyCrypto.backend.unpickleInboundGroupSession(pickle, key: key))
    }

    private init(backend: any InboundGroupBackend) throws {
        sessionID = try backend.sessionID()
        guarded = Guarded(backend)
    }

    /// The session, encrypted with `key`, as text to store.
    public func pickle(key: PickleKey) throws -> String {
        try guarded.use { try $0.pickle(key: key) }
    }

    /// The first message index this session can decrypt.
    public var firstKnownIndex: UInt32 {
        guarded.use { $0.firstKnownIndex }
    }

    /// Decrypts one message. A message before ``firstKnownIndex`` throws
    /// ``OlmError/Code/unknownMessageIndex``; a tampered one throws (bad MAC or signature).
    public func decrypt(_ ciphertext: String) throws -> MegolmDecrypted {
        var (bytes, index) = try guarded.use { try $0.decrypt(ciphertext) }
        defer { Secrets.wipe(&bytes) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw OlmError(operation: "decrypt Megolm message", code: .invalidUTF8)
        }
        return MegolmDecrypted(plaintext: text, messageIndex: index)
    }

    /// The session from `messageIndex` on, for ``init(importing:)`` elsewhere (answering a key
    /// request, a key backup). Throws if `messageIndex` is before ``firstKnownIndex``.
    public func export(at messageIndex: UInt32) throws -> String {
        try guarded.use { try $0.export(at: messageIndex) }
    }
}
