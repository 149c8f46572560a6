import Synchronization

/// Where the outbox keeps queued items until the transport has accepted them.
public protocol OutboxStore: Sendable {
    /// Adds `inserting` and removes the items with ids `deleting`, atomically (group commit).
    func commit(inserting: [OutboxItem], deleting: [UUIDKey]) throws
    /// Every item still queued, in FIFO order (for a restart).
    func pending() throws -> [OutboxItem]
    /// True when a commit waits for a network round trip (PostgreSQL): the outbox then commits
    /// off its actor and writes what was submitted meanwhile in the next commit.
    var commitTakesARoundTrip: Bool { get }
}

extension OutboxStore {
    /// A local store: its commits are quick enough to run on the outbox's actor.
    public var commitTakesARoundTrip: Bool { false }
}

/// An outbox item id as the stores key it.
public typealias UUIDKey = OutboxItem.ID

extension OutboxItem: Identifiable {}

/// Keeps queued items in memory: survives a new `Outbox` on the same store in one process,
/// not a process restart.
public final class MemoryOutboxStore: OutboxStore {
    private let items = Mutex<[UUIDKey: OutboxItem]>([:])

    /// An empty store.
    public init() {}

    public func commit(inserting: [OutboxItem], deleting: [UUIDKey]) throws {
        items.withLock { items in
            for item in inserting { items[item.id] = item }
            for id in deleting { items.removeValue(forKey: id) }
        }
    }

    public func pending() throws -> [OutboxItem] {
        items.withLock { $0.values.sorted { $0.sequence < $1.sequence } }
    }
}

/// Keeps nothing: for clients whose storage is memory, where nothing is to survive anyway.
/// Items queued when the outbox stops are failed to their callers and forgotten.
struct VolatileOutboxStore: OutboxStore {
    func commit(inserting: [OutboxItem], deleting: [UUIDKey]) throws {}
    func pending() throws -> [OutboxItem] { [] }
}
