/// A content whose type code this client has not registered. It keeps the raw payload, so
/// forwarding or storing it re-encodes the very same object, and shows its fallback.
public struct UnknownContent: MessageContent, Hashable {
    /// The unregistered type code.
    public let typeCode: Int64
    /// The payload exactly as received.
    public let raw: [String: JSONValue]

    /// Keeps `raw` as it is.
    public init(typeCode: Int64, raw: [String: JSONValue]) {
        self.typeCode = typeCode
        self.raw = raw
    }

    public var cardName: String? { raw["card"]?.stringValue }
    public var fallback: String { raw["fallback"]?.stringValue ?? "[Unsupported message]" }

    public func encodeFields() -> [String: JSONValue] { raw.filter { !ReservedKey.all.contains($0.key) } }
    public func encoded() -> JSONValue { .object(raw) }
}
