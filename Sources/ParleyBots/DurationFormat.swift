/// The duration syntax of bot files: a whole number and a unit — `500ms`, `2s`, `10m`, `1h`,
/// `1d` — or several such parts written together, largest first (`1h30m`).
public enum DurationFormat {
    /// What a valid duration looks like, for error messages.
    public static let expected = "expected a number and a unit (ms, s, m, h, d), like 500ms, 2s, 10m, 1h or 1d"

    /// Parses `text`; throws a message naming the text and what is expected.
    public static func parse(_ text: String) throws(ValueSyntaxError) -> Duration {
        if let duration = parseASCII(text) { return duration }
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
            guard let (size, rank) = Self.unit(named: unit) else {
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

    /// The usual duration, ASCII digits and units only, read on its bytes: what the general
    /// path gives such a text. Nil for anything else (non-ASCII, a problem): the general path
    /// then reads it, or reports exactly where it stops.
    private static func parseASCII(_ text: String) -> Duration? {
        text.utf8.withContiguousStorageIfAvailable { bytes -> Duration? in
            guard !bytes.isEmpty else { return nil }
            var index = 0
            var total = Duration.zero
            var lastUnitRank = Int.max
            while index < bytes.count {
                let start = index
                var number = 0
                while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                    guard number < 1_000_000_000 else { return nil }
                    number = number * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                    index += 1
                }
                guard index > start else { return nil }
                let unitStart = index
                while index < bytes.count, (bytes[index] | 0x20) >= UInt8(ascii: "a"), (bytes[index] | 0x20) <= UInt8(ascii: "z") { index += 1 }
                // A non-ASCII letter would belong to the unit: the general path decides.
                if index < bytes.count, bytes[index] >= 0x80 { return nil }
                guard let (size, rank) = unit(UnsafeBufferPointer(rebasing: bytes[unitStart..<index])), rank < lastUnitRank else { return nil }
                lastUnitRank = rank
                total += size * number
            }
            return total
        } ?? nil
    }

    /// The size of a unit, and its rank (units go from larger to smaller ranks).
    private static func unit(named name: String) -> (Duration, Int)? {
        var name = name
        return name.withUTF8 { unit($0) }
    }

    /// The size and rank of the unit whose UTF-8 is `bytes`.
    private static func unit(_ bytes: UnsafeBufferPointer<UInt8>) -> (Duration, Int)? {
        switch (bytes.count, bytes.first) {
        case (2, UInt8(ascii: "m")) where bytes[1] == UInt8(ascii: "s"): (.milliseconds(1), 0)
        case (1, UInt8(ascii: "s")): (.seconds(1), 1)
        case (1, UInt8(ascii: "m")): (.seconds(60), 2)
        case (1, UInt8(ascii: "h")): (.seconds(3600), 3)
        case (1, UInt8(ascii: "d")): (.seconds(86_400), 4)
        default: nil
        }
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
}
