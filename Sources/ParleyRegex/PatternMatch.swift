/// One successful match: where it is in the searched text and what the named groups captured.
public struct PatternMatch: Sendable, Hashable {
    /// The matched range in the searched string.
    public var range: Range<String.Index>
    /// The matched text.
    public var text: String
    /// Named group → captured text, for every named group that took part in the match.
    public var groups: [String: String]

    /// Creates a match value (the engine builds these; public for tests of code that consumes them).
    public init(range: Range<String.Index>, text: String, groups: [String: String]) {
        self.range = range
        self.text = text
        self.groups = groups
    }
}
