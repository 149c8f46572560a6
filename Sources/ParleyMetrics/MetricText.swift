/// The text exposition format's spelling of numbers, label sets and help texts (0.0.4).
enum MetricText {
    /// Whole numbers without a fraction, `+Inf`, `-Inf` and `NaN` as the format spells them.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// `{a="x",b="y"}`, or "" without labels. Values escape `\`, `"` and line feeds.
    static func labels(_ names: [String], _ values: [String]) -> String {
        guard !names.isEmpty else { return "" }
        var text = "{"
        for (index, (name, value)) in zip(names, values).enumerated() {
            if index > 0 { text += "," }
            text += name + "=\"" + escape(value, quotes: true) + "\""
        }
        return text + "}"
    }

    /// Escapes `\` and line feeds (and `"` in label values).
    static func escape(_ text: String, quotes: Bool) -> String {
        guard text.utf8.contains(where: { $0 == 0x5C || $0 == 0x0A || (quotes && $0 == 0x22) }) else { return text }
        var escaped = ""
        for character in text {
            switch character {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\"" where quotes: escaped += "\\\""
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
