import ParleyMatrix
import ParleyStore

/// Where each Matrix account's own databases go (its session `matrix-<bot>`, its crypto store
/// `crypto-<bot>`): files in the storage folder, or schemas of the shared PostgreSQL database.
public struct AccountDatabases: Sendable {
    private enum Place: Sendable {
        case folder(String)
        case postgres(String, FenceBook?, prefix: String)
    }
    private let place: Place

    public init(folder: String) { place = .folder(folder) }
    /// Schemas of the database at `postgresURL`, fenced by the leases in `fences`.
    public init(postgresURL: String, fences: FenceBook? = nil) { place = .postgres(postgresURL, fences, prefix: "parley_") }

    /// The accounts' databases of broadcast helpers (a process sending a job of a bot whose
    /// lease another holds): schemas `parley_helper_…` of their own, shared by the helpers and
    /// not fenced (no lease is theirs), so they never write to the bot's own. Nil on SQLite,
    /// where one process runs every bot.
    public var helpers: AccountDatabases? {
        guard case .postgres(let url, _, _) = place else { return nil }
        return AccountDatabases(place: .postgres(url, nil, prefix: "parley_helper_"))
    }

    private init(place: Place) { self.place = place }

    /// A lock over `m.direct` shared by the processes acting as one account (each transport
    /// its own); nil for files, which one process holds.
    public func accountDataLock() -> (any MatrixAccountDataLock)? {
        guard case .postgres(let url, _, _) = place else { return nil }
        return PostgresAccountDataLock(location: url)
    }

    /// The store location of bot `bot`'s database `name` (`matrix-support` →
    /// `<folder>/matrix-support.db`, or the schema `parley_matrix_support` fenced by the bot's lease).
    public func location(_ name: String, of bot: String) -> String {
        switch place {
        case .folder(let folder): folder + "/\(name).db"
        case .postgres(let url, let fences, let prefix): StoreLocation.postgres(url, schema: prefix + name, fence: fences?.fence(of: bot))
        }
    }
}
