/// Why a regular expression could not be compiled or matched.
public enum PatternError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The pattern does not compile. `offset` counts Unicode scalars from the start of the
    /// pattern to where PCRE2 stopped, so callers can turn it into a column.
    case compile(message: String, offset: Int)
    /// Matching hit the match, depth, heap or JIT stack limit: the pattern backtracks too much
    /// on this text. Treated as "no decision", never as a match.
    case limitExceeded
    /// Any other matching failure PCRE2 reports (should not happen with valid UTF-8 input).
    case matchFailed(code: Int32, message: String)

    public var description: String {
        switch self {
        case .compile(let message, let offset): return "invalid regular expression at offset \(offset): \(message)"
        case .limitExceeded: return "regular expression exceeded its match limit (too much backtracking)"
        case .matchFailed(let code, let message): return "regular expression match failed (\(code)): \(message)"
        }
    }
}
