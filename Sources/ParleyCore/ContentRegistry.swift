/// Maps type codes to content decoders. Build one at start-up, then share it (it is a value).
///
/// Duplicate codes (and duplicate card names) are rejected. Decoding an unregistered code gives
/// an `UnknownContent` that keeps the raw payload.
public struct ContentRegistry: Sendable {
    /// Turns a payload object into a content; throws `invalidContent` naming the field.
    public typealias Decoder = @Sendable (ContentFields) throws -> any MessageContent

    struct Entry: Sendable {
        var name: String
        var decode: Decoder
    }

    private var entries: [Int64: Entry] = [:]
    private var names: [String: Int64] = [:]

    /// An empty registry (every payload decodes to `UnknownContent`).
    public init() {}

    /// Text and every `BuiltInCard`.
    public static var standard: ContentRegistry {
        var registry = ContentRegistry()
        // The built-in codes are distinct, so these cannot conflict.
        try? registry.register(TextContent.self)
        for card in BuiltInCard.all { try? registry.register(code: card.typeCode, name: card.name, decoder: card.decode) }
        return registry
    }

    /// Registers a content type with a fixed code.
    public mutating func register<Content: RegistrableContent>(_ type: Content.Type) throws {
        try register(code: Content.contentTypeCode, name: Content.contentName) { try Content.decode($0) }
    }

    /// Registers a card type declared in YAML.
    public mutating func register(card definition: CardDefinition) throws {
        try register(code: definition.typeCode, name: definition.name) { try CardContent.decode($0, definition: definition) }
    }

    /// Registers a decoder for `code`. Throws `conflict` if the code or the name is taken.
    public mutating func register(code: Int64, name: String, decoder: @escaping Decoder) throws {
        if let existing = entries[code] {
            throw ParleyError(.conflict, "content type \(code) is already registered as '\(existing.name)'",
                              context: ["type": String(code), "name": name])
        }
        if let other = names[name] {
            throw ParleyError(.conflict, "content name '\(name)' is already registered with type \(other)",
                              context: ["type": String(code), "name": name])
        }
        entries[code] = Entry(name: name, decode: decoder)
        names[name] = code
    }

    /// The registered name of `code`, if any.
    public func name(of code: Int64) -> String? { entries[code]?.name }

    /// The code registered under `name` (`greeting`, `order`, …), if any.
    public func code(named name: String) -> Int64? { names[name] }

    /// Decodes a payload. It must be an object with an integer `type`; an unregistered type
    /// gives `UnknownContent`; a registered one with bad fields throws `invalidContent`.
    public func decode(_ payload: JSONValue) throws -> any MessageContent {
        guard let object = payload.objectValue else {
            throw ParleyError(.invalidContent, "payload must be a JSON object, found \(payload.jsonString().prefix(60))")
        }
        guard let code = object["type"]?.intValue else {
            throw ParleyError(.invalidContent, "payload has no integer 'type'", context: ["field": "type"])
        }
        guard let entry = entries[code] else { return UnknownContent(typeCode: code, raw: object) }
        return try entry.decode(ContentFields(object, contentName: entry.name))
    }
}
