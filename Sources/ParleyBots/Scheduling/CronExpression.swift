/// A five-field cron expression — minute, hour, day of month, month, day of week — with lists
/// (`1,15`), ranges (`1-5`), steps (`*/15`, `10-50/20`, `5/10`), names (`MON-FRI`, `JAN`) and
/// the shortcuts `@hourly`, `@daily`/`@midnight`, `@weekly`, `@monthly`, `@yearly`/`@annually`.
///
/// As in Vixie cron, when both day fields are restricted (neither starts with `*`) a day
/// matches if EITHER matches; otherwise both must. Day of week 0 and 7 are Sunday.
public struct CronExpression: Sendable, Hashable, CustomStringConvertible {
    /// The expression as written.
    public let source: String
    /// The allowed values of each field as bit sets (bit `n` for value `n`): parsing fills and
    /// `nextFire` tests them without hashing (`parley check` parses every schedule's cron).
    let minuteBits: UInt64, hourBits: UInt64, dayOfMonthBits: UInt64, monthBits: UInt64, dayOfWeekBits: UInt64
    /// True when the day-of-month / day-of-week field does not start with `*`.
    public let dayOfMonthRestricted: Bool, dayOfWeekRestricted: Bool

    public var description: String { source }

    private static let shortcuts: [String: String] = [
        "@hourly": "0 * * * *", "@daily": "0 0 * * *", "@midnight": "0 0 * * *",
        "@weekly": "0 0 * * 0", "@monthly": "0 0 1 * *", "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *",
    ]

    private struct Field {
        let name: String
        let range: ClosedRange<Int>
        let names: [String: Int]

        /// The last value `*` stands for: 6 for the day of week (7 is Sunday again).
        var starEnd: Int { name == "day of week" ? 6 : range.upperBound }
    }

    private static let fields: [Field] = [
        Field(name: "minute", range: 0...59, names: [:]),
        Field(name: "hour", range: 0...23, names: [:]),
        Field(name: "day of month", range: 1...31, names: [:]),
        Field(name: "month", range: 1...12, names: Dictionary(uniqueKeysWithValues:
            ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"].enumerated().map { ($1, $0 + 1) })),
        Field(name: "day of week", range: 0...7, names: Dictionary(uniqueKeysWithValues:
            ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"].enumerated().map { ($1, $0) })),
    ]

    /// Parses `source`. Errors say which field is wrong, what is allowed, and carry the offset
    /// of the offending field inside the expression.
    public init(_ source: String) throws(ValueSyntaxError) {
        self.source = source
        let trimmed = String(Substring(source).trimmingSpaces)
        var text = source
        if trimmed.hasPrefix("@") {
            guard let expansion = CronExpression.shortcuts[trimmed.lowercased()] else {
                throw ValueSyntaxError("unknown cron shortcut '\(trimmed)': expected @hourly, @daily, @weekly, @monthly or @yearly")
            }
            text = expansion
        }
        // Split on spaces and tabs, remembering each field's offset (in Unicode scalars) for
        // error positions; fields are slices of the text, not rebuilt strings.
        var parts: [(text: Substring, offset: Int)] = []
        let scalars = text.unicodeScalars
        var scalarIndex = 0
        var fieldStart: (index: String.Index, offset: Int)?
        var index = scalars.startIndex
        while index != scalars.endIndex {
            let scalar = scalars[index]
            if scalar == " " || scalar == "\t" {
                if let start = fieldStart { parts.append((Substring(scalars[start.index..<index]), start.offset)); fieldStart = nil }
            } else if fieldStart == nil {
                fieldStart = (index, scalarIndex)
            }
            scalarIndex += 1
            index = scalars.index(after: index)
        }
        if let start = fieldStart { parts.append((Substring(scalars[start.index...]), start.offset)) }
        guard parts.count == 5 else {
            throw ValueSyntaxError("invalid cron expression '\(source)': expected 5 fields (minute hour day-of-month month day-of-week), found \(parts.count)")
        }
        var sets: [UInt64] = []
        sets.reserveCapacity(5)
        for (field, part) in zip(CronExpression.fields, parts) {
            sets.append(try CronExpression.parseField(part.text, field, offset: part.offset))
        }
        minuteBits = sets[0]
        hourBits = sets[1]
        dayOfMonthBits = sets[2]
        monthBits = sets[3]
        // 7 is Sunday too; store Sundays as 0 only.
        dayOfWeekBits = sets[4] & 0x80 == 0 ? sets[4] : (sets[4] & ~0x80) | 1
        dayOfMonthRestricted = !parts[2].text.hasPrefix("*")
        dayOfWeekRestricted = !parts[4].text.hasPrefix("*")
    }

    /// Allowed minutes (0–59).
    public var minutes: Set<Int> { CronExpression.values(minuteBits) }
    /// Allowed hours (0–23).
    public var hours: Set<Int> { CronExpression.values(hourBits) }
    /// Allowed days of month (1–31).
    public var daysOfMonth: Set<Int> { CronExpression.values(dayOfMonthBits) }
    /// Allowed months (1–12).
    public var months: Set<Int> { CronExpression.values(monthBits) }
    /// Allowed weekdays (0–6, 0 = Sunday).
    public var daysOfWeek: Set<Int> { CronExpression.values(dayOfWeekBits) }

    /// The values whose bits are set, in increasing order.
    static func sortedValues(_ bits: UInt64) -> [Int] {
        (0..<64).filter { bits & (1 << UInt64($0)) != 0 }
    }

    private static func values(_ bits: UInt64) -> Set<Int> { Set(sortedValues(bits)) }

    private static func parseField(_ text: Substring, _ field: Field, offset: Int) throws(ValueSyntaxError) -> UInt64 {
        // Most fields are `*` or one number in range: their bits without splitting the text into
        // lists, steps and ranges (what the general path below gives them too).
        if text == "*" { return bits(from: field.range.lowerBound, through: field.starEnd, by: 1) }
        if let number = digits(text), field.range.contains(number) { return 1 << UInt64(number) }
        var result: UInt64 = 0
        var itemOffset = offset
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            defer { itemOffset += item.unicodeScalars.count + 1 }
            func fail(_ problem: String) -> ValueSyntaxError {
                ValueSyntaxError("invalid \(field.name) '\(item)' in cron expression: \(problem)", offset: itemOffset)
            }
            let stepParts = item.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            var step = 1
            if stepParts.count == 2 {
                guard let value = Int(stepParts[1]), value > 0 else { throw fail("the step after '/' must be a whole number above 0") }
                step = value
            }
            let rangeText = stepParts[0]
            var low: Int, high: Int
            if rangeText == "*" {
                low = field.range.lowerBound
                high = field.starEnd
            } else {
                let bounds = rangeText.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
                guard let first = value(bounds[0], field) else { throw fail(expected(field)) }
                low = first
                if bounds.count == 2 {
                    guard let last = value(bounds[1], field) else { throw fail(expected(field)) }
                    // `MON-SUN` ends on Sunday as 7, like `1-7`.
                    high = field.name == "day of week" && last == 0 && low > 0 ? 7 : last
                } else {
                    // `5/10` means from 5 to the end of the range in steps of 10.
                    high = stepParts.count == 2 ? field.range.upperBound : low
                }
            }
            guard field.range.contains(low), field.range.contains(high) else {
                throw fail("out of range \(field.range.lowerBound)-\(field.range.upperBound)")
            }
            guard low <= high else { throw fail("the range goes backwards (\(low) > \(high))") }
            result |= bits(from: low, through: high, by: step)
        }
        return result
    }

    /// The bit set of `stride(from: low, through: high, by: step)`; the callers' range checks
    /// keep every value below 64.
    private static func bits(from low: Int, through high: Int, by step: Int) -> UInt64 {
        var result: UInt64 = 0
        for value in stride(from: low, through: high, by: step) { result |= 1 << UInt64(value) }
        return result
    }

    /// The value of a text of ASCII digits only (as `Int(text)` reads it), without the generic
    /// parsing and per-Character checks; nil for anything else, or too long to be sure of.
    private static func digits(_ text: Substring) -> Int? {
        let utf8 = text.utf8
        guard !utf8.isEmpty, utf8.count <= 18 else { return nil }
        var number = 0
        for byte in utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            number = number * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return number
    }

    private static func value(_ text: Substring, _ field: Field) -> Int? {
        if let number = digits(text) { return number }
        // ASCII letters only (`MON`, `jan`): no number, and upper-cased byte by byte, which is
        // what `uppercased()` does to them, without its Unicode case mapping.
        if let name = asciiUppercased(text) { return field.names[name] }
        if let number = Int(text), text.allSatisfy(\.isASCII) { return number }
        return field.names[text.uppercased()]
    }

    /// `text` upper-cased when it is a few ASCII letters, else nil.
    private static func asciiUppercased(_ text: Substring) -> String? {
        let utf8 = text.utf8
        // A letter with bit 5 set is a lower-case one; cleared, its upper-case one.
        guard !utf8.isEmpty, utf8.count <= 15, utf8.allSatisfy({ ($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "z") }) else {
            return nil
        }
        return String(unsafeUninitializedCapacity: utf8.count) { buffer in
            for (index, byte) in utf8.enumerated() { buffer[index] = byte & 0xDF }
            return utf8.count
        }
    }

    private static func expected(_ field: Field) -> String {
        var text = "expected a number \(field.range.lowerBound)-\(field.range.upperBound)"
        if field.name == "month" { text += " or a name JAN-DEC" }
        if field.name == "day of week" { text += " (0 and 7 are Sunday) or a name SUN-SAT" }
        return text + ", '*', a list 'a,b', a range 'a-b' or a step '*/n'"
    }
}
