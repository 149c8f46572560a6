import Foundation

/// The databases a store test runs on: SQLite always, PostgreSQL when `scripts/test` (or you)
/// started one and exported `PARLEY_TEST_POSTGRES_URL` (`scripts/postgres start`).
///
/// Use `@Test(arguments: TestDatabase.kinds)` and `TestDatabase.location(kind)`: each call gives a
/// fresh, empty place (a new SQLite file, or a new PostgreSQL schema), so tests never meet.
public enum TestDatabase: String, Sendable, CustomStringConvertible, CaseIterable {
    case sqlite
    case postgres

    /// The environment variable naming the test PostgreSQL.
    public static let environmentKey = "PARLEY_TEST_POSTGRES_URL"

    /// The test PostgreSQL's URL, nil when none was started.
    public static var postgresURL: String? {
        ProcessInfo.processInfo.environment[environmentKey].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// SQLite, and PostgreSQL when one is available.
    public static var kinds: [TestDatabase] { postgresURL == nil ? [.sqlite] : [.sqlite, .postgres] }

    public var description: String { rawValue }

    /// A fresh store location string for this kind (see `StoreLocation`): a file in a new
    /// temporary folder, or a new schema `t_<label>_<random>` in the test PostgreSQL.
    public func location(_ label: String = "store") -> String {
        let unique = UUID().uuidString.prefix(8).lowercased()
        switch self {
        case .sqlite:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-db-\(UUID())")
            // Owner-only, as Parley makes its own folders (a looser one would be warned about).
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            return folder.appendingPathComponent("\(label).db").path
        case .postgres:
            let clean = String(label.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" }.prefix(30))
            return "\(Self.postgresURL ?? "postgres://unset")#t_\(clean)_\(unique)"
        }
    }
}
