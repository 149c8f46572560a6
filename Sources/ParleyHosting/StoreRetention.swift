import Foundation
import ParleyBots
import ParleyCore

/// `storage.retention`: deletes what the host no longer needs (finished broadcast jobs,
/// resolved tickets, greetings of users not heard from, the transport's seen events) once at
/// start and then every `interval`, on the host's clock, so tables stop growing with age.
public struct StoreRetention: Sendable {
    /// How long records are kept.
    public var retention: Duration
    /// Time between clean-ups.
    public var interval: Duration
    /// One store's pruning, by name (for the log line): deletes records older than the date
    /// given and returns how many.
    public typealias Store = (name: String, prune: @Sendable (Date) async throws -> Int)

    /// The stores cleaned up.
    public var stores: [Store]

    /// A clean-up of `stores`, keeping `retention`, every `interval` (an hour unless set).
    public init(retention: Duration, interval: Duration = .seconds(3600),
                stores: [Store]) {
        self.retention = retention
        self.interval = interval
        self.stores = stores
    }

    /// One clean-up at `now`: records older than `now - retention` go. Returns what was deleted
    /// per store; a store that fails is logged and the others still run.
    @discardableResult
    public func pruneOnce(now: Date, logger: BotLogger) async -> [String: Int] {
        let cutoff = now.addingTimeInterval(-retention.timeInterval)
        var deleted: [String: Int] = [:]
        for store in stores {
            do {
                deleted[store.name] = try await store.prune(cutoff)
            } catch {
                logger.log(.error, at: now, bot: nil, "retention clean-up failed", ["store": store.name, "error": "\(error)"])
            }
        }
        let total = deleted.values.reduce(0, +)
        if total > 0 {
            var fields = deleted.filter { $0.value > 0 }.mapValues(String.init)
            fields["before"] = ISO8601DateFormatter().string(from: cutoff)
            logger.log(.info, at: now, bot: nil, "old records deleted", fields)
        }
        return deleted
    }

    /// Runs a clean-up now and then every `interval` until the task is cancelled.
    public func run(clock: any ParleyClock, logger: BotLogger) async {
        // Bounded by cancellation: the host cancels this task when it shuts down.
        while !Task.isCancelled {
            await pruneOnce(now: clock.now(), logger: logger)
            do { try await clock.sleep(for: interval) } catch { return }
        }
    }
}
