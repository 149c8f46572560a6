import Foundation
import ParleyCore

/// How broadcasts are sent: retries, how many sends are in flight, batch sizes and the
/// host-wide cap every job shares.
public struct BroadcastConfiguration: Sendable {
    /// Backoff for transient failures (`networkUnavailable`, `rateLimited`, `timeout`, …);
    /// after `maxAttempts` the recipient is marked failed. The server's `retryAfter` wins.
    public var retry: RetryPolicy
    /// Sends in flight at once per job. The hub and Matrix acknowledge after storing, so
    /// several in flight are what lets a server commit them together.
    public var concurrency: Int
    /// Pending recipients read from storage at a time.
    public var pageSize: Int
    /// Outcomes written per transaction.
    public var recordBatch: Int
    /// The host-wide cap (`broadcasts: rate:` in config.yaml), shared by every job.
    public var globalLimit: RateLimiter?
    /// The jitter source of the backoff, in 0..<1.
    public var random: @Sendable () -> Double
    /// Recipients a run claims at a time on a shared database: a sixteenth of what the job has
    /// pending when the run starts, within these bounds (and at most `pageSize`), so the
    /// processes share out a small job too, and a big one costs a claim per thousand sends.
    /// On SQLite a run claims whole pages.
    public var sharedChunk: ClosedRange<Int> = 50...1024
    /// How long a run's claim on a chunk of recipients lasts (renewed while it sends): after
    /// a crash, that run's chunk waits this long before another run takes it.
    public var claimFor: TimeInterval

    /// Creates a configuration; the defaults suit a single host.
    public init(retry: RetryPolicy = RetryPolicy(initialDelay: .milliseconds(500), maximumDelay: .seconds(30), maxAttempts: 6),
                concurrency: Int = 256, pageSize: Int = 1024, recordBatch: Int = 512, globalLimit: RateLimiter? = nil,
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }, claimFor: TimeInterval = 15) {
        self.retry = retry
        self.concurrency = max(1, concurrency)
        self.pageSize = max(1, pageSize)
        self.recordBatch = max(1, recordBatch)
        self.globalLimit = globalLimit
        self.random = random
        self.claimFor = max(1, claimFor)
    }

    /// The chunk a run claims on a shared database, for a job with `pending` recipients left.
    func chunk(pending: Int) -> Int {
        min(pageSize, max(sharedChunk.lowerBound, min(sharedChunk.upperBound, pending / 16)))
    }

    /// A token-bucket rate for `perSecond` messages a second: bursts of a tenth of a second,
    /// so high rates are not paced one sleep per message, low ones not bunched up.
    public static func bucketRate(perSecond: Double) -> TokenBucket.Rate {
        TokenBucket.Rate(perSecond: perSecond, burst: max(1, perSecond / 10))
    }
}
