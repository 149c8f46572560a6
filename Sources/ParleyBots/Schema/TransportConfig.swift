import YAMLCoding

/// `transport:` as the bot engine sees it: a kind and an opaque section. The engine never
/// knows its transport, so the section's other keys (a homeserver, accounts, rooms) belong to
/// the transport's own provider in the hosting layer, which decodes `section` with its own
/// schema and reports its unknown keys there.
public struct TransportConfig: Decodable, Sendable {
    /// The kind when none is written: the embedded hub.
    public static let defaultKind = "local"
    /// `kind:` as written (nil when absent or not a plain scalar; the provider's own decoding
    /// reports a malformed one).
    public var kind: Located<String>?
    /// The whole `transport:` node, for the provider to decode.
    public var section: Node
    /// Where the section starts.
    public var mark: Mark

    /// No `transport:` section: the default kind with its defaults.
    public static let empty = TransportConfig(section: .mapping(Node.Mapping([], mark: Mark(line: 1, column: 1))))

    /// A section from an already parsed node (a mapping).
    public init(section: Node) {
        self.section = section
        mark = section.mark
        kind = section["kind"]?.scalar.flatMap { $0.isNull ? nil : Located(value: $0.value, mark: $0.mark) }
    }

    public init(from decoder: any Decoder) throws {
        // No container is opened: its keys are the provider's to check, not this type's.
        guard let node = decoder.yamlNode else {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: decoder.codingPath,
                                                                    debugDescription: "transport: needs the YAML decoder"))
        }
        guard node.mapping != nil else {
            throw DecodingError.typeMismatch(TransportConfig.self, DecodingError.Context(codingPath: decoder.codingPath,
                debugDescription: "expected a mapping like {kind: local}, found \(node.scalar.map { "'\($0.value)'" } ?? "a sequence")"))
        }
        self.init(section: node)
    }
}
