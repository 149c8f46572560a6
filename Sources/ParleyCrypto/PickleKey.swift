/// The secret every pickle (stored account or session) is encrypted with.
///
/// It comes from the configuration (`encryption.pickle_key`, from an environment variable),
/// never from the store: losing it means the stored sessions cannot be read, and unpickling
/// says so with ``OlmError/Code/wrongPickleKey`` instead of returning garbage. The copies
/// handed to libolm are wiped after each call.
public struct PickleKey: Sendable {
    let bytes: [UInt8]

    /// A key from a configured secret (its UTF-8 bytes).
    public init(_ secret: String) { bytes = Array(secret.utf8) }

    /// A key from raw bytes.
    public init(bytes: [UInt8]) { self.bytes = bytes }
}
