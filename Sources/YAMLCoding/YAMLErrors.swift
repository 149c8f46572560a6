/// Every problem found in one decoding run, sorted by file, line and column.
public struct YAMLErrors: Error, Sendable, CustomStringConvertible {
    /// The problems, sorted by (file, line, column); never empty when thrown by this module.
    public var errors: [YAMLError]

    /// Sorts the given errors and drops repeats of the same message at the same place (a node
    /// reached twice through an alias or a merge key reports once).
    public init(_ errors: [YAMLError]) {
        var seen = Set<Repeat>()
        let unique = errors.filter { seen.insert(Repeat(file: $0.file, mark: $0.mark, message: $0.message)).inserted }
        self.errors = unique.sorted {
            ($0.file, $0.mark.line, $0.mark.column, $0.message) < ($1.file, $1.mark.line, $1.mark.column, $1.message)
        }
    }

    /// Each error's description, one after the other.
    public var description: String {
        errors.map(\.description).joined(separator: "\n")
    }

    private struct Repeat: Hashable {
        let file: String
        let mark: Mark
        let message: String
    }
}
