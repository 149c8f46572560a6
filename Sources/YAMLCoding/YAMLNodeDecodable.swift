/// A type that decodes itself straight from the node tree through a `NodeReader`, without a
/// `Decoder`, containers or retries: the fast path for schemas with many small values.
///
/// Errors are collected as with `init(from:)`: a child that fails records its errors and
/// reads as nil (optional keys) or a stand-in ("" / 0 / false / empty, required keys), so the
/// siblings after it are still checked; keys never asked about are reported as unknown, with
/// a "did you mean" suggestion. The value fails as a whole if anything was recorded.
///
///     struct Card: YAMLNodeDecodable {
///         var type: Located<Int>
///         var title: Located<String>?
///         init(yaml reader: NodeReader) throws {
///             try reader.expectMapping()
///             type = try reader.decode(Located<Int>.self, forKey: "type")
///             title = reader.decodeIfPresent(Located<String>.self, forKey: "title")
///         }
///     }
///
/// The type stays `Decodable`: `YAMLDecoder` and the containers of other `Decodable` types
/// decode it through its reader. Other decoders (JSON, …) are refused with a `DecodingError`.
public protocol YAMLNodeDecodable: Decodable, SendableMetatype {
    /// Reads the value from `reader`'s node.
    init(yaml reader: NodeReader) throws
}

extension YAMLNodeDecodable {
    /// Decodes through `init(yaml:)` when `decoder` is `YAMLDecoder`'s; fails for other decoders.
    public init(from decoder: any Decoder) throws {
        guard let decoder = decoder as? NodeDecoder else {
            throw DecodingError.typeMismatch(Self.self, DecodingError.Context(
                codingPath: decoder.codingPath, debugDescription: "\(Self.self) decodes from YAML only (YAMLDecoder)"))
        }
        if decoder.lenient {
            self = try Self(yaml: NodeReader(standInAt: decoder.context.tree.mark(decoder.node), context: decoder.context, parentPath: decoder.path))
        } else {
            self = try decoder.context.decodeNodeValue(Self.self, node: decoder.node, parentPath: decoder.path, key: .none)
        }
    }
}
