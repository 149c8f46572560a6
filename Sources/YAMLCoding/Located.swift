/// A value plus where it stood in the file, for validation errors after decoding:
/// `source.error(at: command.mark, "unknown card 'vcrd'")`.
public struct Located<Value: Decodable & Sendable>: Decodable, Sendable {
    /// The decoded value.
    public var value: Value
    /// Where the value's node starts (0:0 when decoded by a decoder other than `YAMLDecoder`).
    public var mark: Mark

    /// Wraps a value and its mark.
    public init(value: Value, mark: Mark) {
        self.value = value
        self.mark = mark
    }

    /// Decodes the value and remembers its node's mark.
    public init(from decoder: any Decoder) throws {
        mark = decoder.yamlMark ?? Mark(line: 0, column: 0)
        value = try decoder.singleValueContainer().decode(Value.self)
    }
}

extension Located: Equatable where Value: Equatable {}
extension Located: Hashable where Value: Hashable {}

extension Located: DirectDecodable {
    /// The value decoded straight from the node, without a decoder of its own: a `Located`
    /// stands around most scalars of a bot file, so its `init(from:)` (a decoder object, a
    /// single-value container and a retry frame per scalar) dominated decoding time. The errors
    /// are the value's own, exactly as `init(from:)` reports them.
    static func decodeDirectly(_ node: NodeID, context: DecodingContext, path: () -> CodingPathLink?) throws(ValueFailure) -> Located<Value> {
        do {
            return Located(value: try context.decodeAny(Value.self, node: node, parentPath: path(), key: .none), mark: context.tree.mark(node))
        } catch where error.errors.isEmpty {
            // A failure without errors (a validating init that rejected even its stand-in):
            // `init(from:)` has its own way with those.
            return try context.decodeValue(Located<Value>.self, node: node, parentPath: path(), key: nil)
        }
    }
}
