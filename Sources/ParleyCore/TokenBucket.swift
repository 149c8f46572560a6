import Foundation

/// A token bucket: `rate` tokens a second up to `burst`; each send takes one.
/// A value type driven by the time it is given, so it runs on virtual clocks too.
public struct TokenBucket: Sendable, Hashable {
    /// A sustained rate and the burst allowed on top of it.
    public struct Rate: Sendable, Hashable {
        /// Tokens added a second.
        public var perSecond: Double
        /// The bucket's size.
        public var burst: Double

        /// A rate; the burst defaults to one second's worth (at least 1).
        public init(perSecond: Double, burst: Double? = nil) {
            self.perSecond = max(perSecond, 0.000_001)
            self.burst = max(burst ?? max(perSecond, 1), 1)
        }
    }

    /// The bucket's rate.
    public let rate: Rate
    private var tokens: Double
    private var updated: Date?

    /// A full bucket.
    public init(rate: Rate) {
        self.rate = rate
        self.tokens = rate.burst
    }

    /// When one token will be available: nil if one is available now.
    public mutating func nextAvailable(at now: Date) -> Date? {
        refill(at: now)
        if tokens >= 1 { return nil }
        return now.addingTimeInterval((1 - tokens) / rate.perSecond)
    }

    /// Takes one token (call after `nextAvailable` said nil).
    public mutating func take(at now: Date) {
        refill(at: now)
        tokens -= 1
    }

    /// True when the bucket has refilled completely (it may then be forgotten).
    public mutating func isFull(at now: Date) -> Bool {
        refill(at: now)
        return tokens >= rate.burst
    }

    private mutating func refill(at now: Date) {
        guard let last = updated else { updated = now; return }
        guard now > last else { return }
        tokens = min(rate.burst, tokens + now.timeIntervalSince(last) * rate.perSecond)
        updated = now
    }
}
