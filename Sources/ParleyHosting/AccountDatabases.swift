import SQLiteStore

/// Where each Matrix account's own databases go (its session `matrix-<bot>`, its crypto store
/// `crypto-<bot>`): files in the storage folder, or schemas of the shared PostgreSQL database.
public struct AccountDatabases: Sendable {
    private enum Place: Sendable {
        case folder(String)
        case postgres(String, FenceBook?)
    }
    private let place: Place

    public init(folder: String) { place = .folder(folder) }
    /// Schemas of the database at `postgresURL`, fenced by the leases in `fences`.
    public init(postgresURL: String, fences: FenceBook? = nil) { place = .postgres(postgresURL, fences) }

    /// The store location of bot `bot`'s database `name` (`matrix-support` →
    /// `<folder>/matrix-support.db`, or the schema `parley_matrix_support` fenced by the bot's lease).
    public func location(_ name: String, of bot: String) -> String {
        switch place {
        case .folder(let folder): folder + "/\(name).db"
        case .postgres(let url, let fences): StoreLocation.postgres(url, schema: "parley_" + name, fence: fences?.fence(of: bot))
        }
    }
}
