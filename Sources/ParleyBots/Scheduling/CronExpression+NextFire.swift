import Foundation

extension CronExpression {
    /// The first instant strictly after `date` whose wall-clock time in `timeZone` matches.
    ///
    /// Daylight-saving rules: a matching wall time that does not exist (skipped in spring)
    /// fires once, at the first valid minute after the gap; a wall time that occurs twice
    /// (autumn) fires once, at its first occurrence. Nil when nothing matches within ten
    /// years (e.g. `0 0 30 2 *`), which bounds the search.
    public func nextFire(after date: Date, in timeZone: TimeZone) -> Date? {
        let after = Int64(date.timeIntervalSince1970.rounded(.down))
        // Wall-clock seconds are local time counted as if it were UTC ("naive" seconds).
        let naiveAfter = after + Int64(timeZone.secondsFromGMT(for: date))
        let startMinute = CronExpression.floorDiv(naiveAfter, 60) + 1
        let startDay = CronExpression.floorDiv(startMinute, 1440)
        let sortedHours = CronExpression.sortedValues(hourBits), sortedMinutes = CronExpression.sortedValues(minuteBits)
        for day in startDay...(startDay + 3660) {
            let civil = CronExpression.civil(fromDays: day)
            guard monthBits & (1 << UInt64(civil.month)) != 0, matchesDay(civil) else { continue }
            for hour in sortedHours {
                for minute in sortedMinutes {
                    let wallMinute = day * 1440 + Int64(hour * 60 + minute)
                    guard wallMinute >= startMinute else { continue }
                    let instant = CronExpression.firstInstant(ofNaive: wallMinute * 60, in: timeZone)
                    // A repeated wall time whose first occurrence is already past does not fire again.
                    if instant > after { return Date(timeIntervalSince1970: TimeInterval(instant)) }
                }
            }
        }
        return nil
    }

    private func matchesDay(_ civil: (year: Int64, month: Int, day: Int, weekday: Int)) -> Bool {
        let domMatches = dayOfMonthBits & (1 << UInt64(civil.day)) != 0
        let dowMatches = dayOfWeekBits & (1 << UInt64(civil.weekday)) != 0
        if dayOfMonthRestricted && dayOfWeekRestricted { return domMatches || dowMatches }
        return domMatches && dowMatches
    }

    /// The earliest instant whose local time is `naive`; for a skipped wall time, the
    /// instant the clocks jumped (the first valid time after it), on a whole minute.
    static func firstInstant(ofNaive naive: Int64, in timeZone: TimeZone) -> Int64 {
        func offset(_ instant: Int64) -> Int64 {
            Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant))))
        }
        // Transitions are months apart, so the offsets a day either side cover every reading.
        let candidates = Set([offset(naive - 86_400), offset(naive + 86_400)])
        let valid = candidates.map { naive - $0 }.filter { offset($0) == naive - $0 }
        if let earliest = valid.min() { return earliest }
        // In a gap: the clocks jumped from before `naive` to after it. Binary-search the jump.
        let before = candidates.max() ?? 0, afterOffset = candidates.min() ?? 0
        var low = naive - before, high = naive - afterOffset   // offset(low) is the old one
        let oldOffset = offset(low)
        var steps = 0
        while high - low > 1 && steps < 64 {
            let middle = low + (high - low) / 2
            if offset(middle) == oldOffset { low = middle } else { high = middle }
            steps += 1
        }
        return CronExpression.floorDiv(high + 59, 60) * 60
    }

    static func floorDiv(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }

    /// Proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int, day: Int, weekday: Int) {
        let z = days + 719_468
        let era = floorDiv(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * mp + 2) / 5 + 1)
        let month = Int(mp < 10 ? mp + 3 : mp - 9)
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        // 1970-01-01 was a Thursday (4).
        let weekday = Int(((days % 7) + 7 + 4) % 7)
        return (year, month, day, weekday)
    }
}
