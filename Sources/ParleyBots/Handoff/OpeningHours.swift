import Foundation

/// When a hand-off queue is staffed: weekly opening times read in a time zone (`hours:`).
///
/// Entries (`open:`) are `DAYS TIMES`. DAYS is a day (`Mon` … `Sun` or the full English name,
/// any case), a range `Mon-Fri` — which may wrap through the weekend, `Fri-Mon` being Friday to
/// Monday — or several of those separated by commas (`Mon,Wed`). TIMES is one or more
/// `HH:MM-HH:MM`, separated by spaces or commas, each ending after it starts (`24:00` ends a
/// day; hours past midnight are two entries). A time may be listed once per day.
///
/// Daylight saving: each range opens at the first instant its start time is read on the
/// clock and closes at the first instant its end time is, so a start inside a spring-forward
/// gap opens when the clocks jump, and a range ending in a repeated autumn hour closes the
/// first time round (it does not open again for the repeat).
public struct OpeningHours: Sendable, Hashable {
    /// The zone the times are read in.
    public let timeZone: TimeZone
    /// The open minutes since local midnight (up to 1440) of each weekday, Sunday first:
    /// sorted, disjoint and not touching.
    let week: [[Range<Int>]]

    /// The hours of a spec; throws its first problem (none when `spec.errors(in:)` is empty).
    public init(spec: OpeningHoursSpec) throws(ValueSyntaxError) {
        guard let zone = TimeZone(identifier: spec.timezone.value) else {
            throw ValueSyntaxError(OpeningHours.unknownTimeZone(spec.timezone.value))
        }
        try self.init(timeZone: zone, open: spec.open.value.map(\.value))
    }

    /// The hours of `open` entries in `timeZone`; throws the first problem, its offset inside
    /// the entry.
    public init(timeZone: TimeZone, open: [String]) throws(ValueSyntaxError) {
        let (week, problems) = OpeningHours.week(of: open)
        if let problem = problems.first { throw ValueSyntaxError(problem.message, offset: problem.offset) }
        self.timeZone = timeZone
        self.week = week
    }

    // MARK: - Queries

    /// Whether the queue is open at `date`: some range has opened and not yet closed.
    public func isOpen(at date: Date) -> Bool {
        let time = date.timeIntervalSince1970
        let today = localDay(of: time)
        // Where the clocks go back across midnight, the next day's range can hold an instant
        // whose clock reads the day before; the day before is checked for symmetry.
        for day in (today - 1)...(today + 1) {
            for range in ranges(onDay: day) where Double(range.lowerBound) <= time && time < Double(range.upperBound) {
                return true
            }
        }
        return false
    }

    /// The next instant strictly after `date` at which the queue opens (after being closed);
    /// nil if it never does — every day open around the clock, or nothing open within a year.
    public func nextOpening(after date: Date) -> Date? {
        guard week.contains(where: { $0 != [0..<1440] }) else { return nil }
        let time = date.timeIntervalSince1970
        let first = localDay(of: time)
        // The end of the run of ranges seen last: a range starting there continues it.
        var openUntil: Int64?
        // Every weekday with a range comes round within a week; a year bounds the search even
        // for ranges that vanish into a daylight-saving gap.
        for day in first...(first + 370) {
            for range in ranges(onDay: day) {
                if let end = openUntil, range.lowerBound <= end {
                    openUntil = max(end, range.upperBound)
                    continue
                }
                if Double(range.lowerBound) > time { return Date(timeIntervalSince1970: TimeInterval(range.lowerBound)) }
                openUntil = range.upperBound
            }
        }
        return nil
    }

    // MARK: - Local time

    /// The instants (seconds since 1970) the queue is open on local day `day` (days since
    /// 1970-01-01 on the zone's clock), in order; ranges wholly inside a gap are left out.
    func ranges(onDay day: Int64) -> [Range<Int64>] {
        week[CronExpression.civil(fromDays: day).weekday].compactMap { minutes in
            let start = instant(day, minute: minutes.lowerBound), end = instant(day, minute: minutes.upperBound)
            return start < end ? start..<end : nil
        }
    }

    /// The first instant the clock reads `minute` (0…1440) of local day `day`.
    private func instant(_ day: Int64, minute: Int) -> Int64 {
        CronExpression.firstInstant(ofNaive: day * 86_400 + Int64(minute) * 60, in: timeZone)
    }

    /// The local day the clock shows at `time`.
    func localDay(of time: TimeInterval) -> Int64 {
        CronExpression.floorDiv(wallSeconds(time), 86_400)
    }

    /// The clock's reading at `time` as seconds since 1970-01-01 00:00 on that clock.
    func wallSeconds(_ time: TimeInterval) -> Int64 {
        let date = Date(timeIntervalSince1970: time)
        return Int64(time.rounded(.down)) + Int64(timeZone.secondsFromGMT(for: date))
    }
}
