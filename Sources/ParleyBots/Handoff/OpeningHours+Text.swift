import Foundation

extension OpeningHours {
    private static let monthNames = ["January", "February", "March", "April", "May", "June", "July",
                                     "August", "September", "October", "November", "December"]

    /// `{{queue.opens}}`: when the queue next opens, on its own clock, in English.
    ///
    /// - `now` while it is open;
    /// - `Monday 09:00` — the day and 24-hour time — when that is at most six days ahead by the
    ///   calendar (a weekday name alone is then unambiguous, today included);
    /// - `Monday 5 January 09:00` when it is further;
    /// - `later` if it never opens again (not for hours that pass validation).
    ///
    /// No time zone is named: a queue's customers are expected to share it.
    public func opensText(after date: Date) -> String {
        if isOpen(at: date) { return "now" }
        guard let opening = nextOpening(after: date) else { return "later" }
        let wall = wallSeconds(opening.timeIntervalSince1970)
        let day = CronExpression.floorDiv(wall, 86_400)
        let civil = CronExpression.civil(fromDays: day)
        let minute = Int((wall - day * 86_400) / 60)
        var text = OpeningHours.dayNames[civil.weekday]
        if day - localDay(of: date.timeIntervalSince1970) > 6 {
            text += " \(civil.day) \(OpeningHours.monthNames[civil.month - 1])"
        }
        return text + " " + twoDigits(minute / 60) + ":" + twoDigits(minute % 60)
    }

    private func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
