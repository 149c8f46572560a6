/// Where a test hub keeps its messages.
enum Storage: String, CaseIterable, Sendable, CustomStringConvertible {
    case memory, sqlite
    var description: String { rawValue }
}
