import Foundation
import Testing
import ParleyBots

@Suite struct CronExpressionTests {
    struct Case: Sendable, CustomStringConvertible {
        let expression: String
        let zone: String
        let after: String
        let fires: [String]
        var description: String { "\(expression) in \(zone) after \(after)" }
    }

    static let cases: [Case] = [
        // Berlin spring forward (2026-03-29 02:00 CET → 03:00 CEST): 02:30 does not exist,
        // fires once at 03:00 CEST (01:00Z).
        Case(expression: "30 2 * * *", zone: "Europe/Berlin", after: "2026-03-28T12:00:00Z",
             fires: ["2026-03-29T01:00:00Z", "2026-03-30T00:30:00Z"]),
        // Several matches inside the gap still fire only once.
        Case(expression: "*/20 2 * * *", zone: "Europe/Berlin", after: "2026-03-29T00:00:00Z",
             fires: ["2026-03-29T01:00:00Z", "2026-03-30T00:00:00Z", "2026-03-30T00:20:00Z"]),
        // Berlin fall back (2026-10-25 03:00 CEST → 02:00 CET): 02:30 happens twice, fires once.
        Case(expression: "30 2 * * *", zone: "Europe/Berlin", after: "2026-10-24T12:00:00Z",
             fires: ["2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"]),
        Case(expression: "0,30 * * * *", zone: "Europe/Berlin", after: "2026-10-25T00:00:00Z",
             fires: ["2026-10-25T00:30:00Z", "2026-10-25T02:00:00Z", "2026-10-25T02:30:00Z"]),
        // New York spring forward (2026-03-08 02:00 EST → 03:00 EDT).
        Case(expression: "30 2 * * *", zone: "America/New_York", after: "2026-03-07T12:00:00Z",
             fires: ["2026-03-08T07:00:00Z", "2026-03-09T06:30:00Z"]),
        // New York fall back (2026-11-01 02:00 EDT → 01:00 EST): 01:30 fires at its first occurrence.
        Case(expression: "30 1 * * *", zone: "America/New_York", after: "2026-10-31T12:00:00Z",
             fires: ["2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"]),
        // Starting inside the repeated hour does not fire the repeat.
        Case(expression: "45 1 * * *", zone: "America/New_York", after: "2026-11-01T06:10:00Z",
             fires: ["2026-11-02T06:45:00Z"]),
        // Feb 29 only in leap years.
        Case(expression: "0 12 29 2 *", zone: "UTC", after: "2026-01-01T00:00:00Z",
             fires: ["2028-02-29T12:00:00Z", "2032-02-29T12:00:00Z"]),
        Case(expression: "0 12 29 FEB *", zone: "UTC", after: "2096-03-01T00:00:00Z",
             fires: ["2104-02-29T12:00:00Z"]),
        // Weekdays at 9 in Berlin: Friday evening → Monday morning.
        Case(expression: "0 9 * * 1-5", zone: "Europe/Berlin", after: "2026-11-27T09:00:00Z",
             fires: ["2026-11-30T08:00:00Z", "2026-12-01T08:00:00Z"]),
        Case(expression: "0 9 * * MON-FRI", zone: "Europe/Berlin", after: "2026-11-30T08:00:00Z",
             fires: ["2026-12-01T08:00:00Z"]),
        // Both day fields restricted: either matches (Vixie).
        Case(expression: "0 0 13 * FRI", zone: "UTC", after: "2026-11-01T00:00:00Z",
             fires: ["2026-11-06T00:00:00Z", "2026-11-13T00:00:00Z", "2026-11-20T00:00:00Z"]),
        // A star-step day of month counts as unrestricted: both must match.
        Case(expression: "0 0 */2 * 5", zone: "UTC", after: "2026-11-01T00:00:00Z",
             fires: ["2026-11-13T00:00:00Z", "2026-11-27T00:00:00Z"]),
        Case(expression: "@hourly", zone: "UTC", after: "2026-11-30T10:00:00Z",
             fires: ["2026-11-30T11:00:00Z", "2026-11-30T12:00:00Z"]),
        Case(expression: "@daily", zone: "Asia/Kolkata", after: "2026-11-30T10:00:00Z",
             fires: ["2026-11-30T18:30:00Z"]),
        Case(expression: "@weekly", zone: "UTC", after: "2026-11-30T10:00:00Z",
             fires: ["2026-12-06T00:00:00Z"]),
        Case(expression: "@monthly", zone: "UTC", after: "2026-11-30T10:00:00Z",
             fires: ["2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z"]),
        Case(expression: "10-50/20 8 * JAN,DEC SUN", zone: "UTC", after: "2026-12-06T08:10:00Z",
             fires: ["2026-12-06T08:30:00Z", "2026-12-06T08:50:00Z", "2026-12-13T08:10:00Z"]),
        Case(expression: "5/20 0 1 1 7", zone: "UTC", after: "2026-12-31T23:59:30Z",
             fires: ["2027-01-01T00:05:00Z", "2027-01-01T00:25:00Z", "2027-01-01T00:45:00Z"]),
    ]

    @Test(arguments: cases)
    func nextFireTable(_ testCase: Case) throws {
        let cron = try CronExpression(testCase.expression)
        let zone = try #require(TimeZone(identifier: testCase.zone))
        var date = try Date(testCase.after, strategy: .iso8601)
        var fires: [String] = []
        for _ in testCase.fires {
            guard let next = cron.nextFire(after: date, in: zone) else { break }
            fires.append(next.formatted(.iso8601))
            date = next
        }
        #expect(fires == testCase.fires)
    }

    @Test func impossibleDateNeverFires() throws {
        let cron = try CronExpression("0 0 30 2 *")
        #expect(cron.nextFire(after: Date(timeIntervalSince1970: 0), in: .gmt) == nil)
    }

    /// Never firing is decided on the calendar of any year, not on a search that gives up.
    @Test(arguments: [
        ("0 0 30 2 *", "February has no 30th"),
        ("0 0 31 4 *", "April has no 31st"),
        ("0 0 31 2,4,6 */2", "February, April and June have no 31st"),
        // Both day fields restricted: any Monday, Wednesday or Friday matches.
        ("0 0 31 2,4,6 1-5/2", nil),
        ("0 0 30-31 2 *", "February has no 30th or 31st"),
        // February 29 exists in leap years, on every weekday over the 400-year cycle.
        ("0 12 29 2 *", nil),
        ("0 12 29 2 */7", nil),
        // Both day fields restricted: any Monday of February matches.
        ("0 0 30 2 MON", nil),
        ("0 0 31 2,3 *", nil),
        ("@yearly", nil),
    ] as [(String, String?)])
    func neverFires(expression: String, reason: String?) throws {
        #expect(try CronExpression(expression).neverFiresReason == reason)
    }

    @Test(arguments: [
        ("0 9 * *", "invalid cron expression '0 9 * *': expected 5 fields (minute hour day-of-month month day-of-week), found 4", 0),
        ("0 24 * * *", "invalid hour '24' in cron expression: out of range 0-23", 2),
        ("0 9 * * MON-FRY", "invalid day of week 'MON-FRY' in cron expression: expected a number 0-7 (0 and 7 are Sunday) or a name SUN-SAT, '*', a list 'a,b', a range 'a-b' or a step '*/n'", 8),
        ("1,2,x * * * *", "invalid minute 'x' in cron expression: expected a number 0-59, '*', a list 'a,b', a range 'a-b' or a step '*/n'", 4),
        ("*/0 * * * *", "invalid minute '*/0' in cron expression: the step after '/' must be a whole number above 0", 0),
        ("0 0 * 12-1 *", "invalid month '12-1' in cron expression: the range goes backwards (12 > 1)", 6),
        ("@often", "unknown cron shortcut '@often': expected @hourly, @daily, @weekly, @monthly or @yearly", 0),
    ])
    func parseErrors(expression: String, message: String, offset: Int) {
        #expect(throws: ValueSyntaxError(message, offset: offset)) { try CronExpression(expression) }
    }

    @Test func fieldsAreExpanded() throws {
        let cron = try CronExpression("*/15 9-11 1,15 * 7")
        #expect(cron.minutes == [0, 15, 30, 45])
        #expect(cron.hours == [9, 10, 11])
        #expect(cron.daysOfMonth == [1, 15])
        #expect(cron.months == Set(1...12))
        #expect(cron.daysOfWeek == [0])
        #expect(try CronExpression("0 0 * * FRI-SUN").daysOfWeek == [5, 6, 0])
        #expect(try CronExpression("0 0 * * 5-7").daysOfWeek == [5, 6, 0])
        // Names in any case (upper-cased as `uppercased()` does).
        #expect(try CronExpression("0 0 * jan,Feb,MAR mon-Wed").months == [1, 2, 3])
        #expect(try CronExpression("0 0 * * mon-Wed").daysOfWeek == [1, 2, 3])
        #expect(throws: ValueSyntaxError("invalid month 'ja' in cron expression: expected a number 1-12 or a name JAN-DEC, '*', a list 'a,b', a range 'a-b' or a step '*/n'", offset: 6)) {
            try CronExpression("0 0 * ja *")
        }
    }

    /// Plain numbers and `*` (read without splitting) mean what `Int` and the general path make of them.
    @Test func plainFieldsReadAsNumbers() throws {
        let cron = try CronExpression("+5 007 * * *")
        #expect(cron.minutes == [5])
        #expect(cron.hours == [7])
        #expect(cron.daysOfMonth == Set(1...31))
        #expect(cron.daysOfWeek == Set(0...6))
        #expect(try CronExpression("0 0 * * 7").daysOfWeek == [0])
        #expect(throws: ValueSyntaxError("invalid minute '60' in cron expression: out of range 0-59", offset: 0)) { try CronExpression("60 0 * * *") }
        #expect(throws: ValueSyntaxError("invalid day of month '0' in cron expression: out of range 1-31", offset: 4)) { try CronExpression("0 0 0 * *") }
        #expect(throws: ValueSyntaxError("invalid hour '99999999999999999999' in cron expression: expected a number 0-23, '*', a list 'a,b', a range 'a-b' or a step '*/n'", offset: 2)) {
            try CronExpression("0 99999999999999999999 * * *")
        }
    }
}
