/// The bounds that keep every test finite, whatever the bot does.
public struct FlowTestLimits: Sendable, Hashable {
    /// Most steps one test may have.
    public var maxSteps: Int
    /// Most clock wake-ups one `advance` may cause (a bot re-arming a timer for "now" forever).
    public var maxWakeupsPerAdvance: Int
    /// Wall-clock time one test may take; past it, the test fails (the bot never became idle).
    public var wallClock: Duration

    /// Creates limits; the defaults suit real bots by orders of magnitude.
    public init(maxSteps: Int = 10_000, maxWakeupsPerAdvance: Int = 100_000, wallClock: Duration = .seconds(10)) {
        self.maxSteps = maxSteps
        self.maxWakeupsPerAdvance = maxWakeupsPerAdvance
        self.wallClock = wallClock
    }
}
