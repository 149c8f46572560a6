/// Typed access to the fields of a payload object while decoding, with errors that name
/// the content type and the field (`invalidContent`, context `field`).
public struct ContentFields: Sendable {
    /// The raw object, reserved keys included.
    public let object: [String: JSONValue]
    /// The content name used in error messages (`image`, `order`, …).
    public let contentName: String

    /// Wraps a payload object; `contentName` appears in error messages.
    public init(_ object: [String: JSONValue], contentName: String) {
        self.object = object
        self.contentName = contentName
    }

    /// A required string field.
    public func string(_ key: String) throws -> String {
        guard let value = object[key] else { throw missing(key) }
        guard let text = value.stringValue else { throw mismatch(key, expected: "a string", found: value) }
        return text
    }

    /// An optional string field (absent or null is nil).
    public func optionalString(_ key: String) throws -> String? {
        guard let value = object[key], value != .null else { return nil }
        guard let text = value.stringValue else { throw mismatch(key, expected: "a string", found: value) }
        return text
    }

    /// An optional integer field (absent or null is nil).
    public func optionalInt(_ key: String) throws -> Int64? {
        guard let value = object[key], value != .null else { return nil }
        guard let number = value.intValue else { throw mismatch(key, expected: "an integer", found: value) }
        return number
    }

    func missing(_ key: String) -> ParleyError {
        ParleyError(.invalidContent, "\(contentName): missing field '\(key)'", context: ["field": key, "content": contentName])
    }

    func mismatch(_ key: String, expected: String, found: JSONValue) -> ParleyError {
        ParleyError(.invalidContent, "\(contentName): field '\(key)' must be \(expected), found \(found.jsonString())",
                    context: ["field": key, "content": contentName])
    }
}
