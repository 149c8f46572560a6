import Testing
import ParleyRegex

/// Each of Parley's own PCRE2 limits stops a match that PCRE2's built-in limits would let run
/// (10 million match calls, depth 10 million, 20 GB of heap): a text that needs more work than
/// `PatternLimits.default` allows but less than PCRE2 allows is refused, and the same text
/// completes once only that one limit is raised to PCRE2's value. So dropping one of the
/// `pcre2_set_*_limit` calls, or loosening a default, fails the test of that limit.
///
/// The texts were sized by measuring PCRE2 10.42's minimum limits (binary search on
/// `pcre2_set_*_limit`, as `pcre2test -m` does), with margin on both sides:
///
/// | text | engine | match calls | depth | heap |
/// |---|---|---|---|---|
/// | 28 `a`, `!` against `^(a|aa)+$` | JIT | 1.35 M | – | – |
/// | same | interpreter | 4.04 M | 59 | 9 KiB |
/// | 6,000 `a`, `!` against `^(?:a|b)*$` | interpreter | 12 k | 12,004 | 1.5 MiB |
/// | 3,500 `a`, `!` against `^(?:a|b)*` + 100 `()` + `$` | interpreter | 0.36 M | 7,102 | 12 MiB |
///
/// The last two overflow the JIT's machine stack at once, so with JIT on they test the
/// interpreter that `Pattern` falls back to, under the same limits.
@Suite struct PatternLimitTests {
    /// PCRE2's compiled-in defaults: what a match would run under without Parley's limits.
    static let pcre2Defaults = PatternLimits(matchLimit: 10_000_000, depthLimit: 10_000_000, heapLimitKiB: 20_000_000)

    /// Fibonacci(28) ways to split the run into `a` and `aa`, each tried before the `!` fails it:
    /// no literal or anchor lets PCRE2 give up early.
    static let exponential = (pattern: "^(a|aa)+$", text: String(repeating: "a", count: 28) + "!")

    /// One backtracking frame a character, kept until the `!` at the end fails the match.
    static let deep = (pattern: "^(?:a|b)*$", text: String(repeating: "a", count: 6_000) + "!")

    /// As `deep`, but a frame holds 100 capture groups (1.7 KB), so the frames outgrow the
    /// heap limit before they reach the depth limit.
    static let wide = (pattern: "^(?:a|b)*" + String(repeating: "()", count: 100) + "$",
                       text: String(repeating: "a", count: 3_500) + "!")

    @Test(arguments: [true, false])
    func matchLimitStopsExponentialBacktracking(jit: Bool) throws {
        var raised = PatternLimits.default
        raised.matchLimit = Self.pcre2Defaults.matchLimit
        try expectOnlyTheProjectLimitRefuses(Self.exponential, jit: jit, raised: raised)
    }

    @Test(arguments: [true, false])
    func depthLimitStopsBacktrackingThatNestsTooDeep(jit: Bool) throws {
        var raised = PatternLimits.default
        raised.depthLimit = Self.pcre2Defaults.depthLimit
        try expectOnlyTheProjectLimitRefuses(Self.deep, jit: jit, raised: raised)
    }

    @Test(arguments: [true, false])
    func heapLimitStopsBacktrackingThatOutgrowsItsMemory(jit: Bool) throws {
        var raised = PatternLimits.default
        raised.heapLimitKiB = Self.pcre2Defaults.heapLimitKiB
        try expectOnlyTheProjectLimitRefuses(Self.wide, jit: jit, raised: raised)
    }

    /// `text` is refused under the default limits and, with the same engine, runs to "no
    /// match" under `raised` (the defaults with one limit at PCRE2's value).
    private func expectOnlyTheProjectLimitRefuses(_ example: (pattern: String, text: String), jit: Bool, raised: PatternLimits,
                                                  sourceLocation: SourceLocation = #_sourceLocation) throws {
        let limited = try Pattern(example.pattern, jit: jit)
        try #require(limited.isJIT == jit, sourceLocation: sourceLocation)
        #expect(throws: PatternError.limitExceeded, sourceLocation: sourceLocation) {
            try limited.firstMatch(in: example.text)
        }
        let unlimited = try Pattern(example.pattern, limits: raised, jit: jit)
        #expect(try unlimited.firstMatch(in: example.text) == nil, sourceLocation: sourceLocation)
    }
}
