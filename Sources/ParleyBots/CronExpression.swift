/// A five-field cron expression — minute, hour, day of month, month, day of week — with lists
/// (`1,15`), ranges (`1-5`), steps (`*/15`, `10-50/20`, `5/10`), names (`MON-FRI`, `JAN`) and
/// the shortcuts `@hourly`, `@daily`/`@midnight`, `@weekly`, `@monthly`, `@yearly`/`@annually`.
///
/// As in Vixie cron, when both day fields are restricted (neither starts with `*`) a day
/// matches if EITHER matches; otherwise both must. Day of week 0 and 7 are Sunday.
public struct CronExpression: Sendable, Hashable, CustomStringConvertible {
    /// The expression as written.
    public let source: String
    /// Allowed minutes (0–59), hours (0–23), days of month (1–31), months (1–12), weekdays (0–6, 0 = Sunday).
    public let minutes: Set<Int>, hours: Set<Int>, daysOfMonth: Set<Int>, months: Set<Int>, daysOfWeek: Set<Int>
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
        // Split on spaces and tabs, remembering each field's offset for error positions.
        var parts: [(text: Substring, offset: Int)] = []
        var scalarIndex = 0
        var current = ""
        var currentStart = 0
        for scalar in text.unicodeScalars {
            if scalar == " " || scalar == "\t" {
                if !current.isEmpty { parts.append((Substring(current), currentStart)); current = "" }
            } else {
                if current.isEmpty { currentStart = scalarIndex }
                current.unicodeScalars.append(scalar)
            }
            scalarIndex += 1
        }
        if !current.isEmpty { parts.append((Substring(current), currentStart)) }
        guard parts.count == 5 else {
            throw ValueSyntaxError("invalid cron expression '\(source)': expected 5 fields (minute hour day-of-month month day-of-week), found \(parts.count)")
        }
        var sets: [Set<Int>] = []
        for (field, part) in zip(CronExpression.fields, parts) {
            sets.append(try CronExpression.parseField(part.text, field, offset: part.offset))
        }
        minutes = sets[0]
        hours = sets[1]
        daysOfMonth = sets[2]
        months = sets[3]
        // 7 is Sunday too; store Sundays as 0 only.
        daysOfWeek = Set(sets[4].map { $0 == 7 ? 0 : $0 })
        dayOfMonthRestricted = !parts[2].text.hasPrefix("*")
        dayOfWeekRestricted = !parts[4].text.hasPrefix("*")
    }

    private static func parseField(_ text: Substring, _ field: Field, offset: Int) throws(ValueSyntaxError) -> Set<Int> {
        var result = Set<Int>()
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
                high = field.name == "day of week" ? 6 : field.range.upperBound
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
            result.formUnion(stride(from: low, through: high, by: step))
        }
        return result
    }

    private static func value(_ text: Substring, _ field: Field) -> Int? {
        if let number = Int(text), text.allSatisfy(\.isASCII) { return number }
        return field.names[text.uppercased()]
    }

    private static func expected(_ field: Field) -> String {
        var text = "expected a number \(field.range.lowerBound)-\(field.range.upperBound)"
        if field.name == "month" { text += " or a name JAN-DEC" }
        if field.name == "day of week" { text += " (0 and 7 are Sunday) or a name SUN-SAT" }
        return text + ", '*', a list 'a,b', a range 'a-b' or a step '*/n'"
    }
}
