import YAMLCoding

/// `transport:`.
public struct TransportConfig: Decodable, Sendable {
    /// The transport kinds.
    public enum Kind: String, Sendable, CaseIterable { case local, matrix }
    /// `local` or `matrix`.
    public var kind: Located<String>?
    /// Matrix homeserver base URL (required for `matrix`).
    public var homeserver: Located<String>?
    /// Bot id → credentials (for `matrix`).
    public var accounts: OrderedMap<AccountConfig>?
}
