
/// A coding key for any string: the schema types query keys by name, so YAMLCoding's
/// unknown-key check sees exactly the names a type asked about.
struct SchemaKey: CodingKey, Hashable {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}
