import Foundation
import ParleyStore

/// A store connection (SQLite or PostgreSQL) used by one caller at a time. `Connection` is not `Sendable`; the lock
/// is what makes sharing it between tasks sound, hence `@unchecked`.
final class LockedConnection: @unchecked Sendable {
    private let lock = NSLock()
    private let connection: Connection

    /// Opens the database at `path` and applies `migrations`; SQLite errors become `storage`,
    /// naming the location without a PostgreSQL password.
    init(path: String, migrations: Migrations, what: String) throws {
        do {
            connection = try migrations.open(path)
        } catch let error as StoreError {
            throw ParleyError(.storage, "\(what) database \(StoreLocation(path).shown): \(error)")
        }
    }

    /// Runs `body` with the connection under the lock; SQLite errors become `storage`.
    func with<T>(_ what: String, _ body: (Connection) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        do {
            return try body(connection)
        } catch let error as StoreError {
            throw ParleyError(.storage, "\(what) failed: \(error)")
        }
    }
}
