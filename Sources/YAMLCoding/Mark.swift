/// A position in a YAML file: 1-based line and column (columns count Unicode scalars,
/// as libyaml does). Its description is `line:column`, e.g. `12:5`.
public struct Mark: Sendable, Hashable, Comparable, CustomStringConvertible {
    // Stored as 32-bit numbers: every node of a tree carries a mark, and the smaller nodes
    // make trees a quarter smaller to build, search and free. Larger values are clamped.
    private var storedLine: Int32
    private var storedColumn: Int32

    /// The 1-based line.
    public var line: Int {
        get { Int(storedLine) }
        set { storedLine = Self.clamped(newValue) }
    }

    /// The 1-based column.
    public var column: Int {
        get { Int(storedColumn) }
        set { storedColumn = Self.clamped(newValue) }
    }

    /// Creates a mark at the given 1-based line and column.
    public init(line: Int, column: Int) {
        storedLine = Self.clamped(line)
        storedColumn = Self.clamped(column)
    }

    private static func clamped(_ value: Int) -> Int32 {
        Int32(clamping: value)
    }

    /// `line:column`.
    public var description: String { "\(line):\(column)" }

    /// Orders marks by line, then column.
    public static func < (lhs: Mark, rhs: Mark) -> Bool {
        (lhs.storedLine, lhs.storedColumn) < (rhs.storedLine, rhs.storedColumn)
    }
}
