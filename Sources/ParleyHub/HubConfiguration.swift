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
    /// An in-memory hub keeps this many newest messages (all channels together) for
    /// catch-up and history; older ones are forgotten, so a long run holds bounded memory.
    /// A persistent hub reads history from its file instead.
    public var memoryHistoryLimit: Int
    /// Idempotency receipts a hub keeps in memory (the newest, all senders together): a
    /// resend of one of the last `receiptWindow` messages answers its first receipt. Retries
    /// come within seconds or minutes, far inside the window. A persistent hub looks older
    /// ones up in its file for a send marked `isResend` (the outbox marks retries and what it
    /// recovers after a restart), so those stay exactly once however old.
    public var receiptWindow: Int

    /// Creates a configuration; the defaults suit tests and development.
    public init(payloadLimit: Int = 1 << 20, rateLimit: HubRateLimit? = nil, eventBufferLimit: Int = 65_536,
                memoryHistoryLimit: Int = 10_000, receiptWindow: Int = 40_000) {
        self.payloadLimit = payloadLimit
        self.rateLimit = rateLimit
        self.eventBufferLimit = max(1, eventBufferLimit)
        self.memoryHistoryLimit = max(1, memoryHistoryLimit)
        self.receiptWindow = max(1, receiptWindow)
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
