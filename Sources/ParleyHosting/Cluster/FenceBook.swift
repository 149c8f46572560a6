import ParleyStore
import Synchronization

/// The generation at which this process holds each bot's lease, for the bot's own stores to
/// carry as their fence (`StoreLocation.Fence`): set when a lease is taken, before the bot's
/// stores are opened, so every write they make is checked against it by the database.
public final class FenceBook: Sendable {
    private let generations = Mutex<[String: Int64]>([:])

    public init() {}

    /// Records that lease `bot` is held at `generation`.
    public func hold(_ bot: String, at generation: Int64) { generations.withLock { $0[bot] = generation } }

    /// Forgets lease `bot` (lost or released).
    public func drop(_ bot: String) { generations.withLock { _ = $0.removeValue(forKey: bot) } }

    /// The fence of bot `bot`'s stores, nil when its lease is not held.
    public func fence(of bot: String) -> StoreLocation.Fence? {
        generations.withLock { $0[bot] }.map { StoreLocation.Fence(lease: bot, generation: $0) }
    }
}
