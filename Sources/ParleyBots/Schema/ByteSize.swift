/// The size syntax of `config.yaml`: a whole number of bytes, optionally with a unit —
/// `4096`, `512B`, `64KB`, `1MB` (units of 1,024).
public enum ByteSize {
    /// What a valid size looks like, for error messages.
    public static let expected = "expected a whole number of bytes with an optional unit (B, KB, MB), like 4096, 64KB or 1MB"

    /// Parses `text` into bytes; throws a message naming the text and what is expected.
    public static func parse(_ text: String) throws(ValueSyntaxError) -> Int {
        let scalars = Array(text.unicodeScalars)
        var index = 0
        var number = 0
        while index < scalars.count, (48...57).contains(scalars[index].value) {
            guard number < 1_000_000_000 else { throw ValueSyntaxError("size '\(text)' is too large", offset: 0) }
            number = number * 10 + Int(scalars[index].value - 48)
            index += 1
        }
        guard index > 0 else { throw ValueSyntaxError("invalid size '\(text)': \(expected)", offset: 0) }
        let unit = String(String.UnicodeScalarView(scalars[index...]))
        guard let factor = units[unit] else {
            throw ValueSyntaxError("invalid size '\(text)': unknown unit '\(unit)'; \(expected)", offset: index)
        }
        guard number > 0 else { throw ValueSyntaxError("size '\(text)' must be more than 0", offset: 0) }
        guard number <= Int.max / factor, number * factor <= maximum else {
            throw ValueSyntaxError("size '\(text)' is too large: at most 1GB", offset: 0)
        }
        return number * factor
    }

    private static let maximum = 1 << 30
    private static let units: [String: Int] = ["": 1, "B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30]
}
