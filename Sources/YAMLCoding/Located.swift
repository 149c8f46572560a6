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
