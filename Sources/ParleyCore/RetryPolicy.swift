import Foundation

/// How the outbox retries transient failures: exponential backoff with jitter, capped, and
/// the server's `retryAfter` when it gives one.
public struct RetryPolicy: Sendable, Hashable {
    /// The delay after the first failure.
    public var initialDelay: Duration
    /// Growth of the delay per attempt.
    public var multiplier: Double
    /// The cap of the delay.
    public var maximumDelay: Duration
    /// The fraction of the delay that is randomised (0.2 → ±20 %), so clients that failed
    /// together do not retry together.
    public var jitter: Double
    /// Attempts in total before the item fails for good. A `rateLimited` answer is not an
    /// attempt: the server refused before doing anything, and under a busy account limit a
    /// message can be refused many times while its turn comes.
    public var maxAttempts: Int
    /// How long after its first `rateLimited` answer an item keeps waiting through more
    /// of them before it fails for good.
    public var rateLimitPatience: Duration

    /// A policy; jitter is clamped to 0…1, attempts to at least 1.
    public init(initialDelay: Duration = .milliseconds(200), multiplier: Double = 2, maximumDelay: Duration = .seconds(60),
                jitter: Double = 0.2, maxAttempts: Int = 10, rateLimitPatience: Duration = .seconds(600)) {
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maximumDelay = maximumDelay
        self.jitter = min(max(jitter, 0), 1)
        self.maxAttempts = max(1, maxAttempts)
        self.rateLimitPatience = max(rateLimitPatience, .zero)
    }

    /// Whether a failed item goes back to the queue. `attempts` counts the failures that
    /// were not rate limits; `waited` is the time since the first rate-limit refusal.
    public func shouldRetry(_ error: ParleyError, attempts: Int, waited: Duration) -> Bool {
        guard error.isTransient else { return false }
        if error.code == .rateLimited { return waited < rateLimitPatience }
        return attempts < maxAttempts
    }

    /// The wait after failed attempt number `attempt` (1-based). `retryAfter` from the server
    /// wins when present. `random` is in 0..<1.
    public func delay(afterAttempt attempt: Int, retryAfter: Duration?, random: Double) -> Duration {
        if let retryAfter { return max(retryAfter, .zero) }
        let exponent = Double(max(0, attempt - 1))
        let base = min(initialDelay.timeInterval * pow(multiplier, exponent), maximumDelay.timeInterval)
        let factor = 1 - jitter + 2 * jitter * random
        return .milliseconds(Int64((base * factor * 1000).rounded()))
    }
}
