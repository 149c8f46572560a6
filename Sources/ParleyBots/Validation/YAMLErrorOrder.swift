import YAMLCoding

extension Array where Element == YAMLError {
    /// The errors by file, then line and column; errors at the same place keep their order.
    public func sortedByPosition() -> [YAMLError] {
        enumerated().sorted {
            ($0.element.file, $0.element.mark, $0.offset) < ($1.element.file, $1.element.mark, $1.offset)
        }.map(\.element)
    }
}
