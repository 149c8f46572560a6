extension OpeningHours {
    /// A problem with the `open:` entries: in entry `entry` (nil: the list as a whole) at
    /// `offset` Unicode scalars into it.
    struct Problem: Sendable, Hashable {
        var entry: Int?
        var offset: Int
        var message: String
    }

    /// One entry read: its days (bit `n` for weekday `n`, 0 = Sunday) and its time ranges in
    /// minutes since midnight, each with its text and offset for later messages.
    struct Entry {
        var days: UInt8 = 0
        var ranges: [(minutes: Range<Int>, text: String, offset: Int)] = []
    }

    /// What a valid entry looks like, for messages.
    static let expected = "expected days and times like 'Mon-Fri 09:00-18:00' or 'Mon,Wed 09:00-12:00 14:00-17:00'"

    /// The English day names, Sunday first (the weekday numbering of `CronExpression.civil`).
    static let dayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]

    static func unknownTimeZone(_ name: String) -> String {
        "unknown time zone '\(name)': expected an IANA name like Europe/Berlin, America/New_York or UTC"
    }

    // MARK: - The week

    /// The open minutes of each weekday from `entries`, and every problem found: entries that
    /// do not parse, and ranges that overlap another on the same day (touching is fine:
    /// `09:00-12:00` and `12:00-14:00` make `09:00-14:00`).
    static func week(of entries: [String]) -> (week: [[Range<Int>]], problems: [Problem]) {
        guard !entries.isEmpty else {
            return (Array(repeating: [], count: 7), [Problem(entry: nil, offset: 0, message: "'open' is empty: \(expected)")])
        }
        var problems: [Problem] = []
        // Per weekday, the ranges placed so far and where each came from.
        var placed: [[(minutes: Range<Int>, text: String, entry: String)]] = Array(repeating: [], count: 7)
        for (index, text) in entries.enumerated() {
            let entry: Entry
            do {
                entry = try parse(text)
            } catch {
                problems.append(Problem(entry: index, offset: error.offset, message: error.message))
                continue
            }
            for range in entry.ranges {
                var reported = false
                for day in 0..<7 where entry.days & (1 << day) != 0 {
                    if !reported, let other = placed[day].first(where: { $0.minutes.overlaps(range.minutes) }) {
                        let origin = other.entry == text ? "" : " (from '\(other.entry)')"
                        problems.append(Problem(entry: index, offset: range.offset, message:
                            "time range \(range.text) overlaps \(other.text)\(origin) on \(dayNames[day]): a time may be listed once per day"))
                        reported = true
                    }
                    placed[day].append((range.minutes, range.text, text))
                }
            }
        }
        let week = placed.map { day in
            var merged: [Range<Int>] = []
            for minutes in day.map(\.minutes).sorted(by: { $0.lowerBound < $1.lowerBound }) {
                if let last = merged.last, minutes.lowerBound <= last.upperBound {
                    merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, minutes.upperBound)
                } else {
                    merged.append(minutes)
                }
            }
            return merged
        }
        return (week, problems)
    }

    // MARK: - One entry

    /// Parses `DAYS TIMES`: DAYS is a day or day range, or several separated by commas;
    /// TIMES one or more `HH:MM-HH:MM` separated by spaces or commas.
    static func parse(_ text: String) throws(ValueSyntaxError) -> Entry {
        var scanner = Scanner(scalars: Array(text.unicodeScalars), text: text)
        scanner.skipSpaces()
        guard !scanner.atEnd else { throw ValueSyntaxError("empty opening hours entry: \(expected)") }
        var entry = Entry()
        repeat {
            let start = scanner.index
            let first = try scanner.day()
            var days = UInt8(1) << first
            if scanner.next == "-" {
                scanner.index += 1
                let last = try scanner.day()
                let item = scanner.slice(from: start)
                guard last != first else {
                    throw scanner.error("day range '\(item)' starts and ends on the same day: write '\(scanner.slice(from: start).prefix { $0 != "-" })' for one day or 'Mon-Sun' for the week", at: start)
                }
                // Ranges run forward through the week and may wrap: Fri-Mon is Fri, Sat, Sun, Mon.
                var day = first
                while day != last {
                    day = (day + 1) % 7
                    days |= 1 << day
                }
            }
            guard entry.days & days == 0 else {
                throw scanner.error("'\(scanner.slice(from: start))' repeats a day already listed in this entry", at: start)
            }
            entry.days |= days
            scanner.skipSpaces()
            guard scanner.next == "," else { break }
            scanner.index += 1
            scanner.skipSpaces()
        } while true
        guard !scanner.atEnd else {
            throw scanner.error("'\(text)' has no times: expected one or more ranges like 09:00-18:00 after the days", at: scanner.index)
        }
        while !scanner.atEnd {
            let start = scanner.index
            let from = try scanner.time(isEnd: false)
            guard scanner.next == "-" else {
                throw scanner.error("invalid time range '\(scanner.word(from: start))' in '\(text)': expected START-END like 09:00-18:00", at: start)
            }
            scanner.index += 1
            let to = try scanner.time(isEnd: true)
            let range = scanner.slice(from: start)
            guard to > from else {
                throw scanner.error("time range \(range) does not end after it starts: for hours past midnight write two entries, like 'Fri 22:00-24:00' and 'Sat 00:00-02:00'", at: start)
            }
            entry.ranges.append((from..<to, range, start))
            scanner.skipSpaces()
            if scanner.next == "," {
                scanner.index += 1
                scanner.skipSpaces()
                guard !scanner.atEnd else { throw scanner.error("'\(text)' ends with a comma: expected another time range", at: scanner.index - 1) }
            }
        }
        return entry
    }

    /// A cursor over an entry's Unicode scalars; offsets are what `ValueSyntaxError` carries.
    private struct Scanner {
        let scalars: [Unicode.Scalar]
        let text: String
        var index = 0

        var atEnd: Bool { index >= scalars.count }
        var next: Unicode.Scalar? { atEnd ? nil : scalars[index] }

        mutating func skipSpaces() {
            while let scalar = next, scalar == " " || scalar == "\t" { index += 1 }
        }

        func slice(from start: Int) -> String {
            String(String.UnicodeScalarView(scalars[start..<index]))
        }

        /// The text from `start` up to the next space, comma or end, for messages.
        func word(from start: Int) -> String {
            var end = start
            while end < scalars.count, !" \t,".unicodeScalars.contains(scalars[end]) { end += 1 }
            return String(String.UnicodeScalarView(scalars[start..<end]))
        }

        func error(_ message: String, at offset: Int) -> ValueSyntaxError {
            ValueSyntaxError(message, offset: offset)
        }

        /// A day name — `Mon` or `Monday`, any case — as a weekday number (0 = Sunday).
        mutating func day() throws(ValueSyntaxError) -> Int {
            let start = index
            while let scalar = next, scalar.properties.isAlphabetic { index += 1 }
            let name = slice(from: start).lowercased()
            if let day = OpeningHours.dayNames.firstIndex(where: { $0.lowercased() == name || $0.lowercased().prefix(3) == name }) {
                return day
            }
            let what = name.isEmpty ? "missing day" : "unknown day '\(slice(from: start))'"
            throw error("\(what) in '\(text)': days are Mon, Tue, Wed, Thu, Fri, Sat and Sun, or ranges like Mon-Fri", at: start)
        }

        /// `HH:MM` (one or two digits for the hour) as minutes since midnight; `24:00` only as
        /// an end.
        mutating func time(isEnd: Bool) throws(ValueSyntaxError) -> Int {
            let start = index
            while let scalar = next, !" \t,-".unicodeScalars.contains(scalar) { index += 1 }
            let token = slice(from: start)
            let parts = token.split(separator: ":", omittingEmptySubsequences: false)
            let isDigits = { (part: Substring) in part.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } }
            guard parts.count == 2, (1...2).contains(parts[0].utf8.count), parts[1].utf8.count == 2,
                  isDigits(parts[0]), isDigits(parts[1]), let hour = Int(parts[0]), let minute = Int(parts[1]),
                  hour <= 24, minute <= 59, hour < 24 || minute == 0 else {
                let problem = token.isEmpty ? "missing time" : "invalid time '\(token)'"
                throw error("\(problem) in '\(text)': expected HH:MM from 00:00 to 23:59 (24:00 as an end)", at: start)
            }
            guard hour < 24 || isEnd else {
                throw error("24:00 in '\(text)' can only end a range: write 00:00 to start at midnight", at: start)
            }
            return hour * 60 + minute
        }
    }
}
