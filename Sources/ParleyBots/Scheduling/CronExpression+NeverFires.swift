extension CronExpression {
    /// Why the expression matches no date in any year (`0 0 30 2 *`: "February has no 30th"),
    /// or nil when it fires at least once.
    ///
    /// Minute and hour always allow some value, so only the day fields can rule out every
    /// date. When both are restricted, either one matching is enough, and every month has every
    /// weekday, so it fires. Otherwise both must match: some allowed month must have some
    /// allowed day of month (February 29 counts, it exists in leap years), and then the weekday
    /// condition holds too, because each date falls on every weekday over the 400-year cycle.
    public var neverFiresReason: String? {
        if dayOfMonthRestricted && dayOfWeekRestricted { return nil }
        let months = CronExpression.sortedValues(monthBits)
        let days = CronExpression.sortedValues(dayOfMonthBits)
        guard let firstDay = days.first,
              !months.contains(where: { firstDay <= CronExpression.longestMonth[$0] }) else { return nil }
        let names = months.map { CronExpression.monthNames[$0 - 1] }
        let monthList = names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
        let dayList = days.map(CronExpression.ordinal).joined(separator: " or ")
        return "\(monthList) \(names.count == 1 ? "has" : "have") no \(dayList)"
    }

    /// The most days of each month (index 1–12) in any year: February has 29 in leap years.
    private static let longestMonth = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

    private static let monthNames = ["January", "February", "March", "April", "May", "June", "July",
                                     "August", "September", "October", "November", "December"]

    /// `30th`, `31st`: the days that can be missing from a month are 30 and 31 only.
    private static func ordinal(_ day: Int) -> String {
        switch day % 10 {
        case 1 where day != 11: "\(day)st"
        case 2 where day != 12: "\(day)nd"
        case 3 where day != 13: "\(day)rd"
        default: "\(day)th"
        }
    }
}
