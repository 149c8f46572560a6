import SQLiteStore

/// Where each Matrix account's own databases go (its session `matrix-<bot>`, its crypto store
/// `crypto-<bot>`): files in the storage folder, or schemas of the shared PostgreSQL database.
public struct AccountDatabases: Sendable {
    private enum Place: Sendable {
        case folder(String)
        case postgres(String)
    }
    private let place: Place

    public init(folder: String) { place = .folder(folder) }
    public init(postgresURL: String) { place = .postgres(postgresURL) }

    /// The store location of database `name` (`matrix-support` → `<folder>/matrix-support.db`,
    /// or the schema `parley_matrix_support`).
    public func location(_ name: String) -> String {
        switch place {
        case .folder(let folder): folder + "/\(name).db"
        case .postgres(let url): StoreLocation.postgres(url, schema: "parley_" + name)
        }
    }
}
