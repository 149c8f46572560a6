import Foundation

/// A few connections to one database. On PostgreSQL, for a store's independent
/// per-conversation writes: each statement waits a network round trip, and one connection
/// would make every conversation wait for every other's. On SQLite, for reads beside the
/// file's one writer (the WAL lets readers and the writer go on together; the pool's
/// connections never write). Bounded: at most `size` are opened (on first need), and a
/// caller waits for a free one.
///
/// `@unchecked Sendable`: each connection is used by one caller at a time, handed out and
/// taken back under the condition's lock.
public final class ConnectionPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var idle: [Connection] = []
    private var opened = 0
    public let size: Int
    private let location: String

    /// Connections to `location` (already migrated by its store), at most `size`.
    public init(location: String, size: Int) {
        self.location = location
        self.size = max(1, size)
    }

    /// Runs `body` with a connection of its own for the call.
    public func with<T>(_ body: (Connection) throws -> T) throws -> T {
        let connection = try take()
        defer { give(connection) }
        return try body(connection)
    }

    private func take() throws -> Connection {
        condition.lock()
        while idle.isEmpty && opened >= size { condition.wait() }
        if let connection = idle.popLast() {
            condition.unlock()
            return connection
        }
        opened += 1
        condition.unlock()
        do {
            return try Connection(path: location)
        } catch {
            condition.lock()
            opened -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func give(_ connection: Connection) {
        condition.lock()
        idle.append(connection)
        condition.signal()
        condition.unlock()
    }
}
