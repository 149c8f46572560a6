/// Settings of a `Hub`.
public struct HubConfiguration: Sendable, Hashable {
    /// The default `payloadLimit` of transports: canonical JSON bytes of a payload (1 MiB).
    public var payloadLimit: Int
    /// Server-side rate limit applied to every user without an override; nil for none.
    public var rateLimit: HubRateLimit?
    /// Events one connection may have waiting in its stream. A consumer that falls this far
    /// behind is disconnected (its stream finishes) instead of growing memory without bound;
    /// it reconnects and catches up by sequence number, so no stored message is lost.
    public var eventBufferLimit: Int

    /// Creates a configuration; the defaults suit tests and development.
    public init(payloadLimit: Int = 1 << 20, rateLimit: HubRateLimit? = nil, eventBufferLimit: Int = 65_536) {
        self.payloadLimit = payloadLimit
        self.rateLimit = rateLimit
        self.eventBufferLimit = max(1, eventBufferLimit)
    }
}

/// A token bucket: `messagesPerSecond` sustained, `burst` at once.
public struct HubRateLimit: Sendable, Hashable {
    /// Sustained rate: tokens added per second.
    public var messagesPerSecond: Double
    /// Bucket size: messages that may go at once after a quiet period.
    public var burst: Int

    /// Creates a limit; `burst` is at least 1 and the rate at least 0 (0: only the burst,
    /// then every send is refused).
    public init(messagesPerSecond: Double, burst: Int) {
        self.messagesPerSecond = messagesPerSecond.isFinite ? max(0, messagesPerSecond) : 0
        self.burst = max(1, burst)
    }
}
