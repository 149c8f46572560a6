import Foundation

extension Outbox.SendQueue {
    /// The token buckets a send takes from: its channel's, the account's and the global one.
    struct Buckets {
        /// Why a send may not go now, and until when.
        enum Limit: Equatable {
            /// The channel's bucket is empty: only its lanes wait.
            case lane(until: Date)
            /// The account's or the global bucket is empty: every send waits.
            case account(until: Date)
        }

        let limits: RateLimits
        /// False without any limit (a lone send may then bypass the lanes).
        let limitsAnything: Bool
        private var channels = TokenBuckets<Channel>()
        private var account: TokenBucket?

        init(limits: RateLimits) {
            self.limits = limits
            limitsAnything = limits.perChannel != nil || limits.perAccount != nil || limits.global != nil
            account = limits.perAccount.map(TokenBucket.init(rate:))
        }

        /// Nil if a send on `channel` may go now (a token taken from each bucket); otherwise
        /// the limit that stops it. Tokens are taken only when every bucket has one.
        mutating func acquire(for channel: Channel, at now: Date) -> Limit? {
            let limits = self.limits
            if let rate = limits.perChannel, let next = channels.withBucket(channel, rate: rate, at: now, { $0.nextAvailable(at: now) }) {
                return .lane(until: next)
            }
            if var bucket = account, let next = bucket.nextAvailable(at: now) {
                account = bucket
                return .account(until: next)
            }
            if let global = limits.global, let next = global.acquire(at: now) {
                return .account(until: next)
            }
            account?.take(at: now)
            if let rate = limits.perChannel { channels.withBucket(channel, rate: rate, at: now) { $0.take(at: now) } }
            return nil
        }
    }
}
