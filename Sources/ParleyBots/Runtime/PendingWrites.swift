import Synchronization

/// Values written and not yet committed, by key: what a store's reads show until the writer
/// has committed them. A caller that queues a write and suspends until its commit lets others
/// run meanwhile (on its actor too); a decision they take from a read (who has a ticket, whose
/// turn it is) must see that write, which a reader connection does not until the COMMIT.
final class PendingWrites<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry {
        var value: Value
        /// Writes of the key queued and not yet committed (or failed).
        var queued: Int
    }

    private let entries = Mutex<[Key: Entry]>([:])

    /// A write of `value` under `key` is queued: reads show it (the newest, when several are).
    func queued(_ key: Key, _ value: Value) {
        entries.withLock { entries in
            entries[key] = Entry(value: value, queued: (entries[key]?.queued ?? 0) + 1)
        }
    }

    /// One write of `key` committed or failed: once none is left, reads go to the store.
    func settled(_ key: Key) {
        entries.withLock { entries in
            guard let entry = entries[key] else { return }
            entries[key] = entry.queued > 1 ? Entry(value: entry.value, queued: entry.queued - 1) : nil
        }
    }

    /// The newest value queued under `key`, if a write of it is still pending.
    func value(_ key: Key) -> Value? { entries.withLock { $0[key]?.value } }

    /// The pending values matching `include`.
    func values(where include: (Value) -> Bool) -> [Value] {
        entries.withLock { entries in entries.values.map(\.value).filter(include) }
    }
}
