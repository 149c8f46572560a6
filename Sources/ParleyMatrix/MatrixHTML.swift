import ParleyCore

/// The small HTML that goes into `formatted_body` of cards. Every value is escaped: card fields
/// come from users and templates, and Element renders this HTML.
enum MatrixHTML {
    /// Escapes the five HTML-significant characters.
    static func escape(_ text: String) -> String { HTMLText.escape(text) }

    /// The fallback in bold, then the card's scalar fields as a list (sorted by name);
    /// http(s) values become links. Reserved names (`type`, `card`, `fallback`) are left out.
    static func card(_ fields: [String: JSONValue], fallback: String) -> String {
        var html = "<p><b>\(escape(fallback))</b></p>"
        let items = fields.keys.sorted().filter { !["type", "card", "fallback"].contains($0) }.compactMap { key -> String? in
            guard let value = scalarText(fields[key]) else { return nil }
            return "<li><b>\(escape(key))</b>: \(render(value))</li>"
        }
        if !items.isEmpty { html += "<ul>" + items.joined() + "</ul>" }
        return html
    }

    private static func render(_ value: String) -> String {
        let lower = value.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://") else { return escape(value) }
        return "<a href=\"\(escape(value))\">\(escape(value))</a>"
    }

    private static func scalarText(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text): return text.isEmpty ? nil : text
        case .int(let number): return String(number)
        case .double(let number): return String(number)
        case .bool(let flag): return String(flag)
        default: return nil
        }
    }
}
