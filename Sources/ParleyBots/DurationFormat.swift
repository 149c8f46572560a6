/// The duration syntax of bot files: a whole number and a unit — `500ms`, `2s`, `10m`, `1h`,
/// `1d` — or several such parts written together, largest first (`1h30m`).
public enum DurationFormat {
    /// What a valid duration looks like, for error messages.
    public static let expected = "expected a number and a unit (ms, s, m, h, d), like 500ms, 2s, 10m, 1h or 1d"

    /// Parses `text`; throws a message naming the text and what is expected.
    public static func parse(_ text: String) throws(ValueSyntaxError) -> Duration {
        let scalars = Array(text.unicodeScalars)
        guard !scalars.isEmpty else { throw ValueSyntaxError("empty duration: \(expected)") }
        var index = 0
        var total = Duration.zero
        var lastUnitRank = Int.max
        while index < scalars.count {
            let start = index
            var number = 0
            while index < scalars.count, (48...57).contains(scalars[index].value) {
                guard number < 1_000_000_000 else { throw ValueSyntaxError("duration '\(text)' is too large", offset: start) }
                number = number * 10 + Int(scalars[index].value - 48)
                index += 1
            }
            guard index > start else { throw ValueSyntaxError("invalid duration '\(text)': \(expected)", offset: index) }
            let unitStart = index
            while index < scalars.count, scalars[index].properties.isAlphabetic { index += 1 }
            let unit = String(String.UnicodeScalarView(scalars[unitStart..<index]))
            guard let (size, rank) = units[unit] else {
                throw ValueSyntaxError("invalid duration '\(text)': \(unit.isEmpty ? (unitStart < scalars.count ? "unexpected '\(scalars[unitStart])'" : "missing unit") : "unknown unit '\(unit)'"); \(expected)", offset: unitStart)
            }
            guard rank < lastUnitRank else {
                throw ValueSyntaxError("invalid duration '\(text)': units must go from largest to smallest, each once", offset: unitStart)
            }
            lastUnitRank = rank
            total += size * number
        }
        return total
    }

    /// Renders a duration in the same syntax (`90s` → `1m30s`), for messages and `{{help}}`.
    public static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        var milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        guard milliseconds > 0 else { return "0s" }
        var text = ""
        for (unit, size) in [("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000), ("ms", 1)] as [(String, Int64)] {
            if milliseconds >= size {
                text += "\(milliseconds / size)\(unit)"
                milliseconds %= size
            }
        }
        return text
    }

    private static let units: [String: (Duration, Int)] = [
        "ms": (.milliseconds(1), 0), "s": (.seconds(1), 1), "m": (.seconds(60), 2),
        "h": (.seconds(3600), 3), "d": (.seconds(86_400), 4),
    ]
}
