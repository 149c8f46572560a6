import Foundation

/// Token buckets by key (a channel, a user) that forget full buckets now and then: a full
/// bucket is the same as a new one, so forgetting it changes no answer, and memory follows
/// the keys limited lately instead of every key ever seen. The sweep runs once the count has
/// doubled since the last one, so each bucket pays it a bounded number of times.
public struct TokenBuckets<Key: Hashable & Sendable>: Sendable {
    private var buckets: [Key: TokenBucket] = [:]
    /// The count at which the next sweep runs.
    private var sweepAt = TokenBuckets.firstSweep
    private static var firstSweep: Int { 1024 }

    /// No buckets.
    public init() {}

    /// Buckets held now (full ones included until the next sweep).
    public var count: Int { buckets.count }

    /// Runs `body` on `key`'s bucket at `rate` (a new full one if there is none, or if it ran
    /// at another rate); a sweep may forget full buckets first.
    public mutating func withBucket<Result>(_ key: Key, rate: TokenBucket.Rate, at now: Date,
                                            _ body: (inout TokenBucket) -> Result) -> Result {
        if buckets.count >= sweepAt { sweep(at: now) }
        // In place: one hash look-up.
        return Self.run(&buckets[key, default: TokenBucket(rate: rate)], rate: rate, body)
    }

    private static func run<Result>(_ bucket: inout TokenBucket, rate: TokenBucket.Rate, _ body: (inout TokenBucket) -> Result) -> Result {
        if bucket.rate != rate { bucket = TokenBucket(rate: rate) }
        return body(&bucket)
    }

    /// Forgets the buckets that have refilled completely.
    private mutating func sweep(at now: Date) {
        buckets = buckets.filter { _, bucket in
            var bucket = bucket
            return !bucket.isFull(at: now)
        }
        sweepAt = max(Self.firstSweep, buckets.count * 2)
    }
}
