import YAMLCoding

/// `broadcasts:` — the host-wide cap shared by all broadcasts.
public struct BroadcastLimits: Decodable, Sendable {
    /// Rate such as `100/s`.
    public var rate: Located<String>?
}
