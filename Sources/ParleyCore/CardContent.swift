/// A card of a type declared in YAML: the definition and a value for each declared field.
public struct CardContent: MessageContent, Hashable {
    /// The card type: name, code, fields, fallback.
    public let definition: CardDefinition
    /// Values by field name; only declared fields.
    public let values: [String: JSONValue]

    /// A card with `values`; a field the definition does not declare throws `invalidContent`.
    /// Missing fields are allowed (the fallback renders them empty).
    public init(definition: CardDefinition, values: [String: JSONValue]) throws {
        for key in values.keys where !definition.fields.contains(key) {
            throw ParleyError(.invalidContent, "card '\(definition.name)' has no field '\(key)' (fields: \(definition.fields.joined(separator: ", ")))",
                              context: ["card": definition.name, "field": key])
        }
        self.definition = definition
        self.values = values
    }

    public var typeCode: Int64 { definition.typeCode }
    public var cardName: String? { definition.name }

    /// A field's value as text: strings as they are, other JSON as compact JSON.
    public func text(of field: String) -> String? {
        guard let value = values[field] else { return nil }
        switch value {
        case .string(let text): return text
        case .null: return nil
        default: return value.jsonString()
        }
    }

    public var fallback: String { definition.fallback.render { text(of: $0) } }

    public func encodeFields() -> [String: JSONValue] { values }

    /// Decodes a wire object of this card type; undeclared keys are left out.
    public static func decode(_ fields: ContentFields, definition: CardDefinition) throws -> CardContent {
        try CardContent(definition: definition, values: fields.object.filter { definition.fields.contains($0.key) })
    }
}
