/// One Olm-encrypted message as it travels in `m.room.encrypted` to-device content
/// (`ciphertext.<curve25519 key>.{type, body}`).
public struct OlmMessage: Sendable, Equatable {
    /// Olm's message types, as numbered on the wire.
    public enum Kind: Int, Sendable {
        /// Type 0: carries what the receiver needs to create the session (sent until the
        /// other side has answered).
        case preKey = 0
        /// Type 1: a message in an established session.
        case normal = 1
    }

    public let kind: Kind
    /// The base64 ciphertext.
    public let body: String

    public init(kind: Kind, body: String) {
        self.kind = kind
        self.body = body
    }

    /// A message from its wire `type`; nil for a type Olm does not define.
    public init?(type: Int, body: String) {
        guard let kind = Kind(rawValue: type) else { return nil }
        self.init(kind: kind, body: body)
    }
}
