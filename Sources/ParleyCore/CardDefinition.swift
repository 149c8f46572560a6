/// A card type declared in YAML (`cards:`): its name, type code, fields and fallback.
public struct CardDefinition: Sendable, Hashable {
    /// The names the built-in contents use; a declared card may not take one.
    public static let builtInNames: Set<String> = Set([TextContent.contentName] + BuiltInCard.all.map(\.name))
    /// Field names a declared card may not use: they are the reserved keys of every payload.
    public static var reservedFieldNames: Set<String> { ReservedKey.all }
    /// Codes below this are Parley's own.
    public static let firstCustomCode: Int64 = 1000

    /// The card name (`order`), written as `card` on the wire.
    public let name: String
    /// The content type code (1000 or more).
    public let typeCode: Int64
    /// The declared fields, in declaration order.
    public let fields: [String]
    /// Rendered with the card's field values to give its fallback text.
    public let fallback: Template

    /// Checks the declaration: code ≥ 1000, a name that is not a built-in, unique field names
    /// that are not reserved, and a fallback that only uses declared fields. Throws
    /// `invalidArgument` with the offending `field` in the context.
    public init(name: String, typeCode: Int64, fields: [String], fallback: Template) throws {
        func invalid(_ message: String, field: String) -> ParleyError {
            ParleyError(.invalidArgument, "card '\(name)': \(message)", context: ["card": name, "field": field])
        }
        guard !name.isEmpty else { throw invalid("the name is empty", field: "name") }
        guard !Self.builtInNames.contains(name) else {
            throw invalid("'\(name)' is a built-in card name", field: "name")
        }
        guard typeCode >= Self.firstCustomCode else {
            throw invalid("type \(typeCode) is below \(Self.firstCustomCode) (codes below are Parley's own)", field: "type")
        }
        var seen: Set<String> = []
        for field in fields {
            guard !field.isEmpty else { throw invalid("a field name is empty", field: "fields") }
            guard !Self.reservedFieldNames.contains(field) else { throw invalid("field '\(field)' is a reserved name", field: field) }
            guard seen.insert(field).inserted else { throw invalid("field '\(field)' is declared twice", field: field) }
        }
        for variable in fallback.variables where !seen.contains(variable) {
            throw invalid("the fallback uses '{{\(variable)}}', which is not a declared field", field: "fallback")
        }
        self.name = name
        self.typeCode = typeCode
        self.fields = fields
        self.fallback = fallback
    }
}
