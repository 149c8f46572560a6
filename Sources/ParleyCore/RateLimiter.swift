import Foundation
import Synchronization

/// A token bucket shared by several clients (the global limit of a process).
public final class RateLimiter: Sendable {
    private let bucket: Mutex<TokenBucket>

    /// A full shared bucket.
    public init(rate: TokenBucket.Rate) {
        bucket = Mutex(TokenBucket(rate: rate))
    }

    /// Takes a token if one is there; otherwise returns when one will be.
    public func acquire(at now: Date) -> Date? {
        bucket.withLock { bucket in
            if let next = bucket.nextAvailable(at: now) { return next }
            bucket.take(at: now)
            return nil
        }
    }

    /// When a token will be available, without taking one.
    public func nextAvailable(at now: Date) -> Date? {
        bucket.withLock { $0.nextAvailable(at: now) }
    }
}

/// The outbox's rate limits: per channel, per account (this outbox) and global (shared).
public struct RateLimits: Sendable {
    /// Per conversation.
    public var perChannel: TokenBucket.Rate?
    /// For this outbox's account.
    public var perAccount: TokenBucket.Rate?
    /// Shared by every outbox given the same limiter.
    public var global: RateLimiter?

    /// Limits; nil means none.
    public init(perChannel: TokenBucket.Rate? = nil, perAccount: TokenBucket.Rate? = nil, global: RateLimiter? = nil) {
        self.perChannel = perChannel
        self.perAccount = perAccount
        self.global = global
    }

    /// No limits.
    public static let unlimited = RateLimits()
}
