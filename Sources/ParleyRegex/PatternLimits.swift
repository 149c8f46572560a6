/// Work limits for one match, so a hostile chat message cannot stall the bot on a
/// backtracking-heavy pattern. Exceeding any of them throws `PatternError.limitExceeded`.
public struct PatternLimits: Sendable, Hashable {
    /// PCRE2 match limit: calls of the internal match function (JIT counts similar units).
    public var matchLimit: UInt32
    /// PCRE2 depth limit: backtracking depth of the interpreter (JIT ignores it).
    public var depthLimit: UInt32
    /// PCRE2 heap limit in KiB for the interpreter's backtracking memory.
    public var heapLimitKiB: UInt32

    /// Creates limits.
    public init(matchLimit: UInt32, depthLimit: UInt32, heapLimitKiB: UInt32) {
        self.matchLimit = matchLimit
        self.depthLimit = depthLimit
        self.heapLimitKiB = heapLimitKiB
    }

    /// Generous for chat-sized texts, yet a catastrophic pattern fails within milliseconds
    /// (PCRE2's own defaults are 10 million matches and 20 MB, too slow to give up).
    public static let `default` = PatternLimits(matchLimit: 1_000_000, depthLimit: 10_000, heapLimitKiB: 8_192)
}
