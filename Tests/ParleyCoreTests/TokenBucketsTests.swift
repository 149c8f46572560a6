import Foundation
import ParleyCore
import Testing

/// Buckets by key forget the full ones, so a sender that met a million channels does not
/// keep a million buckets — and forgetting never lets a limited key send early.
@Suite struct TokenBucketsTests {
    static let rate = TokenBucket.Rate(perSecond: 1, burst: 1)
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func fullBucketsAreForgottenAndEmptyOnesStillLimit() {
        var buckets = TokenBuckets<Int>()
        for key in 0..<1000 { buckets.withBucket(key, rate: Self.rate, at: Self.start) { $0.take(at: Self.start) } }
        // Ten seconds on, the first thousand have refilled: the next sweep forgets them.
        let later = Self.start.addingTimeInterval(10)
        for key in 1000..<3000 { buckets.withBucket(key, rate: Self.rate, at: later) { $0.take(at: later) } }
        #expect(buckets.count < 2100, "\(buckets.count) buckets kept")
        // Every bucket emptied at `later` still makes its key wait, whether swept past or not.
        for key in 1000..<3000 {
            let next = buckets.withBucket(key, rate: Self.rate, at: later) { $0.nextAvailable(at: later) }
            #expect(next == later.addingTimeInterval(1))
        }
    }

    @Test func aNewRateStartsAFullBucket() {
        var buckets = TokenBuckets<String>()
        buckets.withBucket("a", rate: Self.rate, at: Self.start) { $0.take(at: Self.start) }
        let same = buckets.withBucket("a", rate: Self.rate, at: Self.start) { $0.nextAvailable(at: Self.start) }
        #expect(same != nil)
        let faster = TokenBucket.Rate(perSecond: 10, burst: 5)
        let fresh = buckets.withBucket("a", rate: faster, at: Self.start) { $0.nextAvailable(at: Self.start) }
        #expect(fresh == nil)
    }
}
