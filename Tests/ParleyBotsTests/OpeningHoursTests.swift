import Foundation
import Testing
import YAMLCoding
import ParleyBots

@Suite struct OpeningHoursTests {
    static let shop = ["Mon-Fri 09:00-18:00", "Sat 10:00-14:00"]

    func hours(_ open: [String], in zone: String = "Europe/Berlin") throws -> OpeningHours {
        try OpeningHours(timeZone: try #require(TimeZone(identifier: zone)), open: open)
    }

    func date(_ text: String) throws -> Date { try Date(text, strategy: .iso8601) }

    func opening(_ hours: OpeningHours, after text: String) throws -> String? {
        hours.nextOpening(after: try date(text))?.formatted(.iso8601)
    }

    /// The instants (UTC) at which `hours` is open, among `instants`.
    func openAt(_ hours: OpeningHours, _ instants: [String]) throws -> [String] {
        try instants.filter { hours.isOpen(at: try date($0)) }
    }

    // MARK: - Decoding and errors

    func renderedErrors(_ yaml: String) -> String {
        do {
            let spec = try YAMLDecoder(environment: [:]).decode(OpeningHoursSpec.self, from: yaml, file: "t.yaml")
            return spec.errors(in: SourceFile(name: "t.yaml", text: yaml)).map(\.description).joined(separator: "\n")
        } catch {
            return error.description
        }
    }

    @Test func aValidSpecDecodesWithoutErrors() throws {
        let yaml = #"{ timezone: Europe/Berlin, open: ["Mon-Fri 09:00-18:00", "Sat 10:00-14:00"] }"#
        let spec = try YAMLDecoder(environment: [:]).decode(OpeningHoursSpec.self, from: yaml, file: "t.yaml")
        #expect(spec.errors(in: SourceFile(name: "t.yaml", text: yaml)).isEmpty)
        #expect(try OpeningHours(spec: spec) == hours(Self.shop))
    }

    @Test func problemsPointInsideTheEntries() {
        #expect(renderedErrors("""
            timezone: Europe/Berln
            open:
              - "Mon-Fry 09:00-18:00"
              - Sat 10:00-09:00
              - 'Mon 9:0-12:00'
              - Sun 10:00-12:00, 11:00-13:00
            """) == """
            t.yaml:1:11: error: unknown time zone 'Europe/Berln': expected an IANA name like Europe/Berlin, America/New_York or UTC
            timezone: Europe/Berln
                      ^
            t.yaml:3:10: error: unknown day 'Fry' in 'Mon-Fry 09:00-18:00': days are Mon, Tue, Wed, Thu, Fri, Sat and Sun, or ranges like Mon-Fri
              - "Mon-Fry 09:00-18:00"
                     ^
            t.yaml:4:9: error: time range 10:00-09:00 does not end after it starts: for hours past midnight write two entries, like 'Fri 22:00-24:00' and 'Sat 00:00-02:00'
              - Sat 10:00-09:00
                    ^
            t.yaml:5:10: error: invalid time '9:0' in 'Mon 9:0-12:00': expected HH:MM from 00:00 to 23:59 (24:00 as an end)
              - 'Mon 9:0-12:00'
                     ^
            t.yaml:6:22: error: time range 11:00-13:00 overlaps 10:00-12:00 on Sunday: a time may be listed once per day
              - Sun 10:00-12:00, 11:00-13:00
                                 ^
            """)
    }

    @Test func overlapsAcrossEntriesNameTheOtherEntry() {
        #expect(renderedErrors("""
            timezone: UTC
            open: ["Mon-Fri 09:00-18:00", "Fri 17:00-20:00", "Sat 09:00-12:00", "Sat 12:00-14:00"]
            """) == """
            t.yaml:2:36: error: time range 17:00-20:00 overlaps 09:00-18:00 (from 'Mon-Fri 09:00-18:00') on Friday: a time may be listed once per day
            open: ["Mon-Fri 09:00-18:00", "Fri 17:00-20:00", "Sat 09:00-12:00", "Sat 12:00-14:00"]
                                               ^
            """)
    }

    @Test func theShapeIsCheckedWhileDecoding() {
        #expect(renderedErrors("timezone: UTC\nopen: [Mon 09:00-10:00]\nopne: x\n") == """
            t.yaml:3:1: error: unknown key 'opne', did you mean 'open'?
            opne: x
            ^
            """)
        #expect(renderedErrors("open: [Mon 09:00-10:00]\n") == """
            t.yaml:1:1: error: missing required key 'timezone'
            open: [Mon 09:00-10:00]
            ^
            """)
        #expect(renderedErrors("timezone: UTC\nopen: []\n") == """
            t.yaml:2:7: error: 'open' is empty: expected days and times like 'Mon-Fri 09:00-18:00' or 'Mon,Wed 09:00-12:00 14:00-17:00'
            open: []
                  ^
            """)
    }

    @Test(arguments: [
        ("", "empty opening hours entry: expected days and times like 'Mon-Fri 09:00-18:00' or 'Mon,Wed 09:00-12:00 14:00-17:00'", 0),
        ("09:00-18:00", "missing day in '09:00-18:00': days are Mon, Tue, Wed, Thu, Fri, Sat and Sun, or ranges like Mon-Fri", 0),
        ("Mon-Fri", "'Mon-Fri' has no times: expected one or more ranges like 09:00-18:00 after the days", 7),
        ("Mon-Mon 09:00-10:00", "day range 'Mon-Mon' starts and ends on the same day: write 'Mon' for one day or 'Mon-Sun' for the week", 0),
        ("Mon-Fri,Wed 09:00-10:00", "'Wed' repeats a day already listed in this entry", 8),
        ("Mon 09:00", "invalid time range '09:00' in 'Mon 09:00': expected START-END like 09:00-18:00", 4),
        ("Mon 09:00-", "missing time in 'Mon 09:00-': expected HH:MM from 00:00 to 23:59 (24:00 as an end)", 10),
        ("Mon 09:60-10:00", "invalid time '09:60' in 'Mon 09:60-10:00': expected HH:MM from 00:00 to 23:59 (24:00 as an end)", 4),
        ("Mon 09:00-24:30", "invalid time '24:30' in 'Mon 09:00-24:30': expected HH:MM from 00:00 to 23:59 (24:00 as an end)", 10),
        ("Mon 24:00-24:00", "24:00 in 'Mon 24:00-24:00' can only end a range: write 00:00 to start at midnight", 4),
        ("Mon 10:00-10:00", "time range 10:00-10:00 does not end after it starts: for hours past midnight write two entries, like 'Fri 22:00-24:00' and 'Sat 00:00-02:00'", 4),
        ("Mon 09:00-10:00,", "'Mon 09:00-10:00,' ends with a comma: expected another time range", 15),
        ("Mon 09:00-10:00 x", "invalid time 'x' in 'Mon 09:00-10:00 x': expected HH:MM from 00:00 to 23:59 (24:00 as an end)", 16),
    ])
    func entryErrors(entry: String, message: String, offset: Int) throws {
        let error = #expect(throws: ValueSyntaxError.self) { try hours([entry], in: "UTC") }
        #expect(error?.message == message)
        #expect(error?.offset == offset)
    }

    // MARK: - Open or closed

    @Test func saturdayEdges() throws {
        let hours = try hours(Self.shop)
        // Saturday 28 November 2026, Berlin is UTC+1: open 10:00-14:00 local.
        #expect(try openAt(hours, ["2026-11-28T08:59:59Z", "2026-11-28T09:00:00Z", "2026-11-28T12:59:59Z", "2026-11-28T13:00:00Z"])
            == ["2026-11-28T09:00:00Z", "2026-11-28T12:59:59Z"])
        #expect(try opening(hours, after: "2026-11-28T08:59:59Z") == "2026-11-28T09:00:00Z")
        // Strictly after: at the opening itself the next one is Monday's.
        #expect(try opening(hours, after: "2026-11-28T09:00:00Z") == "2026-11-30T08:00:00Z")
        #expect(hours.opensText(after: try date("2026-11-28T10:00:00Z")) == "now")
        #expect(hours.opensText(after: try date("2026-11-28T08:00:00Z")) == "Saturday 10:00")
    }

    @Test func saturdayEveningOpensMonday() throws {
        let hours = try hours(Self.shop)
        let evening = try date("2026-11-28T18:00:00Z")   // Saturday 19:00 in Berlin
        #expect(!hours.isOpen(at: evening))
        #expect(hours.nextOpening(after: evening)?.formatted(.iso8601) == "2026-11-30T08:00:00Z")
        #expect(hours.opensText(after: evening) == "Monday 09:00")
    }

    @Test func aDateIsAddedBeyondSixDays() throws {
        let hours = try hours(["Mon 09:00-10:00"])
        // Monday 30 November after closing: next Monday is 7 days on.
        #expect(hours.opensText(after: try date("2026-11-30T10:00:00Z")) == "Monday 7 December 09:00")
        #expect(hours.opensText(after: try date("2026-12-01T10:00:00Z")) == "Monday 09:00")
        #expect(hours.opensText(after: try date("2026-11-30T07:00:00Z")) == "Monday 09:00")
    }

    @Test func midnightEndAndRunsOverMidnight() throws {
        let late = try hours(["Fri 20:00-24:00"], in: "UTC")
        #expect(try openAt(late, ["2026-12-04T23:59:59Z", "2026-12-05T00:00:00Z"]) == ["2026-12-04T23:59:59Z"])
        // Friday 24:00 and Saturday 00:00 are one opening, not two.
        let night = try hours(["Fri 20:00-24:00", "Sat 00:00-02:00"], in: "UTC")
        #expect(try openAt(night, ["2026-12-05T00:00:00Z", "2026-12-05T01:59:59Z", "2026-12-05T02:00:00Z"])
            == ["2026-12-05T00:00:00Z", "2026-12-05T01:59:59Z"])
        #expect(try opening(night, after: "2026-12-04T21:00:00Z") == "2026-12-11T20:00:00Z")
    }

    @Test func commaListsOfDaysAndTimes() throws {
        let hours = try hours(["mon,Wednesday 09:00-12:00, 14:00-17:00"], in: "UTC")
        // Monday 30 November to Wednesday 2 December 2026.
        #expect(try openAt(hours, ["2026-11-30T10:00:00Z", "2026-12-01T10:00:00Z", "2026-12-02T13:00:00Z", "2026-12-02T15:00:00Z"])
            == ["2026-11-30T10:00:00Z", "2026-12-02T15:00:00Z"])
        #expect(try opening(hours, after: "2026-12-02T12:30:00Z") == "2026-12-02T14:00:00Z")
    }

    @Test func dayRangesWrapThroughTheWeekend() throws {
        let hours = try hours(["Fri-Mon 10:00-16:00"], in: "UTC")
        // Friday 4 to Tuesday 8 December 2026.
        #expect(try openAt(hours, ["2026-12-03T11:00:00Z", "2026-12-04T11:00:00Z", "2026-12-05T11:00:00Z", "2026-12-06T11:00:00Z",
                                   "2026-12-07T11:00:00Z", "2026-12-08T11:00:00Z"])
            == ["2026-12-04T11:00:00Z", "2026-12-05T11:00:00Z", "2026-12-06T11:00:00Z", "2026-12-07T11:00:00Z"])
        #expect(try opening(hours, after: "2026-12-07T17:00:00Z") == "2026-12-11T10:00:00Z")
    }

    @Test func alwaysOpenNeverOpens() throws {
        let hours = try hours(["Mon-Sun 00:00-24:00"])
        #expect(hours.isOpen(at: try date("2026-10-25T01:30:00Z")))
        #expect(hours.nextOpening(after: try date("2026-10-25T01:30:00Z")) == nil)
        #expect(hours.opensText(after: try date("2026-10-25T01:30:00Z")) == "now")
    }

    // MARK: - Daylight saving

    @Test func berlinSpringForward() throws {
        // 29 March 2026: 02:00 CET becomes 03:00 CEST at 01:00Z.
        let gap = try hours(["Sun 02:30-04:00"])
        #expect(try opening(gap, after: "2026-03-28T12:00:00Z") == "2026-03-29T01:00:00Z")
        #expect(gap.opensText(after: try date("2026-03-28T12:00:00Z")) == "Sunday 03:00")
        #expect(try openAt(gap, ["2026-03-29T00:59:59Z", "2026-03-29T01:30:00Z", "2026-03-29T02:00:00Z"]) == ["2026-03-29T01:30:00Z"])
        #expect(try opening(gap, after: "2026-03-29T02:00:00Z") == "2026-04-05T00:30:00Z")
        // A range wholly inside the gap does not open that day.
        let lost = try hours(["Sun 02:15-02:45"])
        #expect(try opening(lost, after: "2026-03-28T12:00:00Z") == "2026-04-05T00:15:00Z")
        // A range ending in the gap closes when the clocks jump.
        let early = try hours(["Sun 01:00-02:30"])
        #expect(try openAt(early, ["2026-03-29T00:00:00Z", "2026-03-29T00:59:59Z", "2026-03-29T01:00:00Z"])
            == ["2026-03-29T00:00:00Z", "2026-03-29T00:59:59Z"])
        // Weekday hours keep their local times across the change.
        let shop = try hours(Self.shop)
        #expect(try opening(shop, after: "2026-03-27T17:00:00Z") == "2026-03-28T09:00:00Z")
        #expect(try opening(shop, after: "2026-03-28T13:00:00Z") == "2026-03-30T07:00:00Z")
    }

    @Test func berlinFallBack() throws {
        // 25 October 2026: 03:00 CEST becomes 02:00 CET at 01:00Z; 02:00-03:00 is read twice.
        let early = try hours(["Sun 01:00-02:30"])
        #expect(try openAt(early, ["2026-10-24T22:59:59Z", "2026-10-24T23:00:00Z", "2026-10-25T00:29:59Z",
                                   "2026-10-25T00:30:00Z", "2026-10-25T01:15:00Z"])
            == ["2026-10-24T23:00:00Z", "2026-10-25T00:29:59Z"])
        // The repeated 02:00-02:30 does not open it again.
        #expect(try opening(early, after: "2026-10-25T00:30:00Z") == "2026-11-01T00:00:00Z")
        #expect(early.opensText(after: try date("2026-10-25T01:15:00Z")) == "Sunday 1 November 01:00")
        // A range through the repeated hour stays open through both readings.
        let through = try hours(["Sun 02:30-05:00"])
        #expect(try openAt(through, ["2026-10-25T00:29:59Z", "2026-10-25T00:30:00Z", "2026-10-25T01:15:00Z",
                                     "2026-10-25T03:59:59Z", "2026-10-25T04:00:00Z"])
            == ["2026-10-25T00:30:00Z", "2026-10-25T01:15:00Z", "2026-10-25T03:59:59Z"])
        // The whole Sunday is 25 hours long.
        let sunday = try hours(["Sun 00:00-24:00"])
        #expect(try openAt(sunday, ["2026-10-24T21:59:59Z", "2026-10-24T22:00:00Z", "2026-10-25T22:59:59Z", "2026-10-25T23:00:00Z"])
            == ["2026-10-24T22:00:00Z", "2026-10-25T22:59:59Z"])
    }

    @Test func havanaChangesAtMidnight() throws {
        // 8 March 2026: Saturday 24:00 CST is Sunday 01:00 CDT (05:00Z); Sunday has no 00:00.
        let weekend = try hours(["Sat 20:00-24:00", "Sun 00:00-12:00"], in: "America/Havana")
        #expect(try openAt(weekend, ["2026-03-08T00:59:59Z", "2026-03-08T04:59:59Z", "2026-03-08T05:00:00Z",
                                     "2026-03-08T15:59:59Z", "2026-03-08T16:00:00Z"])
            == ["2026-03-08T04:59:59Z", "2026-03-08T05:00:00Z", "2026-03-08T15:59:59Z"])
        // Sunday's 00:00 continues Saturday's hours: the next opening is next Saturday's.
        #expect(try opening(weekend, after: "2026-03-08T02:00:00Z") == "2026-03-15T00:00:00Z")
        let sunday = try hours(["Sun 00:00-12:00"], in: "America/Havana")
        #expect(try opening(sunday, after: "2026-03-07T12:00:00Z") == "2026-03-08T05:00:00Z")
        #expect(sunday.opensText(after: try date("2026-03-07T12:00:00Z")) == "Sunday 01:00")
        // 1 November 2026: Sunday 01:00 CDT is 00:00 CST again (05:00Z); Saturday closed at the first midnight.
        let saturday = try hours(["Sat 20:00-24:00"], in: "America/Havana")
        #expect(try openAt(saturday, ["2026-11-01T03:59:59Z", "2026-11-01T04:00:00Z", "2026-11-01T05:30:00Z"]) == ["2026-11-01T03:59:59Z"])
    }

    @Test func santiagoGoesBackOverMidnight() throws {
        // 5 April 2026: at 03:00Z Saturday 23:59:59 -03 is followed by Saturday 23:00 -04, so
        // Saturday's last hour is read twice and Sunday 00:00 first comes at 04:00Z.
        let saturday = try hours(["Sat 22:00-24:00"], in: "America/Santiago")
        #expect(try openAt(saturday, ["2026-04-05T00:59:59Z", "2026-04-05T01:00:00Z", "2026-04-05T03:30:00Z",
                                      "2026-04-05T03:59:59Z", "2026-04-05T04:00:00Z"])
            == ["2026-04-05T01:00:00Z", "2026-04-05T03:30:00Z", "2026-04-05T03:59:59Z"])
        #expect(try opening(saturday, after: "2026-04-05T01:30:00Z") == "2026-04-12T02:00:00Z")
        #expect(saturday.opensText(after: try date("2026-04-05T04:30:00Z")) == "Saturday 22:00")
        // Saturday's 24:00 and Sunday's 00:00 are one instant: one opening.
        let night = try hours(["Sat 22:00-24:00", "Sun 00:00-02:00"], in: "America/Santiago")
        #expect(try openAt(night, ["2026-04-05T03:30:00Z", "2026-04-05T04:00:00Z", "2026-04-05T05:59:59Z", "2026-04-05T06:00:00Z"])
            == ["2026-04-05T03:30:00Z", "2026-04-05T04:00:00Z", "2026-04-05T05:59:59Z"])
        #expect(try opening(night, after: "2026-04-05T01:30:00Z") == "2026-04-12T02:00:00Z")
    }
}
