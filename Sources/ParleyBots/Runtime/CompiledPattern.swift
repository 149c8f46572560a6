import ParleyRegex

/// A PCRE2 pattern shared between conversations. `Pattern` keeps its match context and is
/// safe to use from several tasks (it is `Sendable`), so one compiled copy serves all.
struct CompiledPattern: Sendable {
    let pattern: Pattern

    /// What matching gave: the named groups, no match, or a match that hit PCRE2's limits
    /// (hostile input): treated as no match and logged by the caller.
    enum Outcome: Sendable {
        case matched([String: String])
        case noMatch
        case limitExceeded(String)
    }

    func match(_ text: String) -> Outcome {
        do {
            guard let found = try pattern.firstMatch(in: text) else { return .noMatch }
            return .matched(found.groups)
        } catch {
            return .limitExceeded(error.description)
        }
    }
}
