import Foundation
import ParleyCore
import ParleyStore

/// Moving a hub's tables from a file of their own into another store's file: `parley run`
/// keeps the hub in `parley.db`, where a release before kept it in `parley.hub.db`.
extension Hub {
    /// What `moveStore` did.
    public struct Move: Sendable, Equatable {
        /// Messages moved.
        public let messages: Int
        /// Where the old file is kept.
        public let backup: String
    }

    /// Moves the hub tables of the SQLite file `legacy` (if it exists) into the file at `path`
    /// and keeps `legacy` as `<legacy>.bak` (`StoreMove`: one transaction, recorded, so a
    /// crash before the rename leaves only the rename to do). Nil when there is no `legacy`.
    /// - Throws: `ParleyError(.storage)` if both files hold hub data (nothing is changed), or
    ///   the files cannot be read, written or renamed.
    public static func moveStore(from legacy: String, into path: String) throws -> Move? {
        do {
            let tables = ["hub_users", "hub_channels", "hub_members", "hub_messages", "hub_reactions"]
            return try StoreMove.move(tables, of: HubDatabase.migrations, from: legacy, into: path).map {
                Move(messages: $0.rows["hub_messages"] ?? 0, backup: $0.backup)
            }
        } catch {
            throw ParleyError(.storage, "cannot move the hub's tables: \(error)", context: ["path": legacy])
        }
    }
}
