extension Node {
    /// The node with every mark set to the start of the file: two nodes equal this way say
    /// the same thing, wherever they stand (a reload compares config sections so).
    public var withoutMarks: Node {
        let origin = Mark(line: 1, column: 1)
        switch self {
        case .scalar(var scalar):
            scalar.mark = origin
            return .scalar(scalar)
        case .sequence(let sequence):
            return .sequence(Sequence(sequence.elements.map(\.withoutMarks), tag: sequence.tag, mark: origin))
        case .mapping(let mapping):
            return .mapping(Mapping(mapping.pairs.map { Pair(key: $0.key.withoutMarks, value: $0.value.withoutMarks) },
                                    tag: mapping.tag, mark: origin))
        }
    }
}
