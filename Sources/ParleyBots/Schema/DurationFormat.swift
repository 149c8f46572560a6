/// The duration syntax of bot files: a whole number and a unit — `500ms`, `2s`, `10m`, `1h`,
/// `1d` — or several such parts written together, largest first (`1h30m`).
public enum DurationFormat {
    /// What a valid duration looks like, for error messages.
    public static let expected = "expected a number and a unit (ms, s, m, h, d), like 500ms, 2s, 10m, 1h or 1d"

    /// Parses `text`; throws a message naming the text and what is expected.
    public static func parse(_ text: String) throws(ValueSyntaxError) -> Duration {
        // ASCII (the usual text) is read on its bytes, where a letter is an ASCII letter; other
        // texts on their Unicode scalars. Offsets count scalars either way.
        let ascii = text.utf8.withContiguousStorageIfAvailable { bytes -> Result<Duration, ValueSyntaxError>? in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            return Result { () throws(ValueSyntaxError) -> Duration in
                try parse(bytes.lazy.map(UInt32.init), text: text) { ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A }
            }
        }
        if let ascii = ascii ?? nil { return try ascii.get() }
        let scalars = Array(text.unicodeScalars)
        return try parse(scalars.lazy.map(\.value), text: text) { Unicode.Scalar($0)?.properties.isAlphabetic ?? false }
    }

    /// Parses the code points `codes` of `text`, `isLetter` telling the letters of units.
    private static func parse<Codes: RandomAccessCollection>(_ codes: Codes, text: String, isLetter: (UInt32) -> Bool)
        throws(ValueSyntaxError) -> Duration where Codes.Element == UInt32, Codes.Index == Int {
        guard !codes.isEmpty else { throw ValueSyntaxError("empty duration: \(expected)") }
        var index = 0
        var total = Duration.zero
        var lastUnitRank = Int.max
        while index < codes.count {
            let start = index
            var number = 0
            while index < codes.count, (48...57).contains(codes[index]) {
                guard number < 1_000_000_000 else { throw ValueSyntaxError("duration '\(text)' is too large", offset: start) }
                number = number * 10 + Int(codes[index] - 48)
                index += 1
            }
            guard index > start else { throw ValueSyntaxError("invalid duration '\(text)': \(expected)", offset: index) }
            let unitStart = index
            while index < codes.count, isLetter(codes[index]) { index += 1 }
            guard let (size, rank) = unit(codes[unitStart..<index]) else {
                let unit = String(String.UnicodeScalarView(codes[unitStart..<index].compactMap(Unicode.Scalar.init)))
                let next = unitStart < codes.count ? Unicode.Scalar(codes[unitStart]).map { "unexpected '\($0)'" } : nil
                throw ValueSyntaxError("invalid duration '\(text)': \(unit.isEmpty ? next ?? "missing unit" : "unknown unit '\(unit)'"); \(expected)", offset: unitStart)
            }
            guard rank < lastUnitRank else {
                throw ValueSyntaxError("invalid duration '\(text)': units must go from largest to smallest, each once", offset: unitStart)
            }
            lastUnitRank = rank
            total += size * number
        }
        return total
    }

    /// The size and rank (units go from larger to smaller ranks) of the unit whose code points
    /// are `codes`.
    private static func unit<Codes: Collection>(_ codes: Codes) -> (Duration, Int)? where Codes.Element == UInt32 {
        var iterator = codes.makeIterator()
        let first = iterator.next(), second = iterator.next()
        guard iterator.next() == nil else { return nil }
        switch (first, second) {
        case (0x6D?, 0x73?): return (.milliseconds(1), 0)   // ms
        case (0x73?, nil): return (.seconds(1), 1)           // s
        case (0x6D?, nil): return (.seconds(60), 2)          // m
        case (0x68?, nil): return (.seconds(3600), 3)        // h
        case (0x64?, nil): return (.seconds(86_400), 4)      // d
        default: return nil
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
