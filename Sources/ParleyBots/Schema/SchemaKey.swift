import YAMLCoding
/// A coding key for any string: the schema types query keys by name, so YAMLCoding's
/// unknown-key check sees exactly the names a type asked about.
struct SchemaKey: CodingKey, Hashable {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}

/// A problem found while decoding that is not a YAML type error (e.g. two actions in one list
/// item). Kept on the decoded value and reported by validation at its position, because
/// throwing from `init(from:)` would stop YAMLCoding from collecting the file's other errors.
struct SchemaIssue: Sendable, Hashable {
    var mark: Mark
    var message: String
}
