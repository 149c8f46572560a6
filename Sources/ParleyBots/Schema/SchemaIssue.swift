import YAMLCoding

/// A problem found while decoding that is not a YAML type error (e.g. two actions in one list
/// item). Kept on the decoded value and reported by validation at its position, because
/// throwing from `init(from:)` would stop YAMLCoding from collecting the file's other errors.
struct SchemaIssue: Sendable, Hashable {
    var mark: Mark
    var message: String
}
