import Foundation

/// A token bucket driven by the hub's clock (so tests control refills).
struct TokenBucket: Sendable {
    let limit: HubRateLimit
    private var tokens: Double
    private var updated: Date

    init(limit: HubRateLimit, now: Date) {
        self.limit = limit
        self.tokens = Double(limit.burst)
        self.updated = now
    }

    /// Takes one token, or says how long until one is available.
    mutating func take(now: Date) -> Duration? {
        let elapsed = max(0, now.timeIntervalSince(updated))
        tokens = min(Double(limit.burst), tokens + elapsed * limit.messagesPerSecond)
        updated = now
        if tokens >= 1 {
            tokens -= 1
            return nil
        }
        guard limit.messagesPerSecond > 0 else { return .seconds(3600) }
        let seconds = (1 - tokens) / limit.messagesPerSecond
        // Rounded up to the millisecond so a retry at exactly that time succeeds.
        return .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }
}
