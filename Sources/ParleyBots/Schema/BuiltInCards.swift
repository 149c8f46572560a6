
/// The cards every bot knows, with their fields (YAML cards may not reuse these names).
public enum BuiltInCards {
    /// Card name → field names.
    public static let fields: [String: [String]] = [
        "greeting": ["text", "summary"],
        "vcard": ["user", "name", "avatar", "phone", "email", "org", "title"],
        "link": ["text", "url", "description", "image"],
        "image": ["url", "width", "height"],
    ]

    /// Built-in names in a stable order, for messages.
    public static let names = ["greeting", "vcard", "link", "image"]

    /// Field names a YAML card may not declare: they mean something in `send:` itself.
    public static let reservedFieldNames: Set<String> = ["type", "fallback", "card"]
}
