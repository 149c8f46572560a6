/// Every problem found in one decoding run, sorted by file, line and column.
public struct YAMLErrors: Error, Sendable, CustomStringConvertible {
    /// The problems, sorted by (file, line, column); never empty when thrown by this module.
    public var errors: [YAMLError]

    /// Sorts the given errors and drops exact duplicates (an alias decoded twice reports once).
    public init(_ errors: [YAMLError]) {
        var seen = Set<YAMLError>()
        let unique = errors.filter { seen.insert($0).inserted }
        self.errors = unique.sorted {
            ($0.file, $0.mark.line, $0.mark.column, $0.message) < ($1.file, $1.mark.line, $1.mark.column, $1.message)
        }
    }

    /// Each error's description, one after the other.
    public var description: String {
        errors.map(\.description).joined(separator: "\n")
    }
}
