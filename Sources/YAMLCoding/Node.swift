/// A YAML node with its position: a scalar, a sequence or a mapping. Aliases are already
/// resolved (an alias yields a copy of its anchored node, marks included) and merge keys
/// `<<` are already applied.
public enum Node: Sendable, Hashable {
    /// A scalar: its text, style and explicit tag.
    case scalar(Scalar)
    /// A sequence of nodes.
    case sequence(Sequence)
    /// A mapping, as ordered key/value pairs.
    case mapping(Mapping)

    /// Where the node starts.
    public var mark: Mark {
        switch self {
        case .scalar(let scalar): scalar.mark
        case .sequence(let sequence): sequence.mark
        case .mapping(let mapping): mapping.mark
        }
    }

    /// The explicit tag, resolved to its full form (`!!str` → `tag:yaml.org,2002:str`), if any.
    public var tag: String? {
        switch self {
        case .scalar(let scalar): scalar.tag
        case .sequence(let sequence): sequence.tag
        case .mapping(let mapping): mapping.tag
        }
    }

    /// The scalar payload, if this is a scalar.
    public var scalar: Scalar? {
        if case .scalar(let scalar) = self { return scalar }
        return nil
    }

    /// The sequence payload, if this is a sequence.
    public var sequence: Sequence? {
        if case .sequence(let sequence) = self { return sequence }
        return nil
    }

    /// The mapping payload, if this is a mapping.
    public var mapping: Mapping? {
        if case .mapping(let mapping) = self { return mapping }
        return nil
    }

    /// True for a null scalar: plain `~`, `null`, `Null`, `NULL` or nothing, or tagged `!!null`.
    public var isNull: Bool {
        guard case .scalar(let scalar) = self else { return false }
        return scalar.isNull
    }

    /// The value for the first scalar key equal to `key`, if this is a mapping.
    public subscript(key: String) -> Node? {
        mapping?.value(forKey: key)
    }

    /// A short description for messages: `null`, `'text'`, `a sequence`, `a mapping`.
    var kindDescription: String {
        switch self {
        case .scalar(let scalar):
            if scalar.isNull { return "null" }
            return Self.describeScalar(scalar.value)
        case .sequence: return "a sequence"
        case .mapping: return "a mapping"
        }
    }

    /// A non-null scalar's text for messages: quoted, long texts shortened, newlines as `\n`.
    static func describeScalar(_ text: String) -> String {
        let shown = text.unicodeScalars.count > 40 ? String(text.prefix(37)) + "..." : text
        return "'" + shown.replacingNewlines() + "'"
    }
}

extension String {
    /// Newlines as `\n`, so one-line messages stay one line.
    func replacingNewlines() -> String {
        guard contains(where: \.isNewline) else { return self }
        return String(flatMap { $0.isNewline ? ["\\", "n"] : [$0] })
    }
}
