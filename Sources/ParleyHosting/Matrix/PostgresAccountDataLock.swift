import Foundation
import ParleyCore
import ParleyMatrix
import ParleyStore
import Synchronization

/// `MatrixAccountDataLock` over a shared PostgreSQL database: a session advisory lock on a
/// connection of its own (one per transport, so two transports of one process exclude each
/// other too: a session's advisory locks are re-entrant). Taken with `pg_try_advisory_lock`
/// and a short pause between tries, so a wait never holds a thread of the cooperative pool.
final class PostgresAccountDataLock: MatrixAccountDataLock {
    private let location: String
    private let connection = Mutex<Connection?>(nil)

    init(location: String) {
        self.location = location
    }

    func acquire(_ key: String) async throws {
        let deadline = ContinuousClock.now + Self.patience
        // Bounded by the deadline: each turn tries once and pauses.
        while true {
            if try tryAcquire(key) { return }
            guard ContinuousClock.now < deadline else {
                throw ParleyError(.timeout, "the lock '\(key)' was held by another process for \(Self.patience)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Takes `key` if no other connection holds it; false at once if one does.
    func tryAcquire(_ key: String) throws -> Bool {
        try attempt("SELECT CASE WHEN pg_try_advisory_lock(hashtext(CAST(? AS TEXT))) THEN 1 ELSE 0 END", key)
    }

    func release(_ key: String) async {
        _ = try? attempt("SELECT CASE WHEN pg_advisory_unlock(hashtext(CAST(? AS TEXT))) THEN 1 ELSE 0 END", key)
    }

    /// Runs a lock statement on the connection (opened at first use; dropped after a failure,
    /// which also gives back what the lost session held).
    private func attempt(_ sql: String, _ key: String) throws -> Bool {
        try connection.withLock { connection in
            do {
                let open = try connection ?? Connection(path: location)
                connection = open
                return try open.scalar(sql, [.text(key)])?.int == 1
            } catch {
                connection = nil
                throw ParleyError(.serverError, "the shared database did not answer for the lock '\(key)': \(error)")
            }
        }
    }

    /// A writer holds it for two requests to the homeserver.
    private static let patience: Duration = .seconds(30)
}
