/// A position in a YAML file: 1-based line and column (columns count Unicode scalars,
/// as libyaml does). Its description is `line:column`, e.g. `12:5`.
public struct Mark: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The 1-based line.
    public var line: Int
    /// The 1-based column.
    public var column: Int

    /// Creates a mark at the given 1-based line and column.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `line:column`.
    public var description: String { "\(line):\(column)" }

    /// Orders marks by line, then column.
    public static func < (lhs: Mark, rhs: Mark) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }
}
