import YAMLCoding

/// `storage:`.
public struct StorageConfig: Decodable, Sendable {
    /// SQLite file path (relative to the working directory), or `:memory:`.
    public var path: Located<String>
}
