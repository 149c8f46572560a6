import Foundation
import ParleyBots
import ParleyCore
import Synchronization
import Testing
import ParleyTesting
import YAMLCoding

@Suite struct CronSchedulerTests {
    /// Records fires; the scheduler awaits the handler, so a test reads them once it sleeps again.
    final class FireLog: Sendable {
        private let fires = Mutex<[ScheduleFire]>([])
        func append(_ fire: ScheduleFire) { fires.withLock { $0.append(fire) } }
        var all: [ScheduleFire] { fires.withLock { $0 } }
        var times: [String] { all.map { $0.due.formatted(.iso8601) + ($0.isCatchUp ? " catch-up" : "") } }
    }

    static func date(_ text: String) throws -> Date { try Date(text, strategy: .iso8601) }

    /// Runs a scheduler over `entries` from `start`, advancing the clock from deadline to
    /// deadline up to `until`, and returns what fired. Every wait is bounded.
    static func fires(_ entries: [SchedulerEntry], store: SchedulerStore, start: Date, until: Date) async throws -> FireLog {
        let clock = ManualClock(start: start)
        let log = FireLog()
        let scheduler = CronScheduler(entries: entries, store: store, clock: clock) { log.append($0) }
        let task = Task { await scheduler.run() }
        defer { task.cancel() }
        for _ in 0..<1_000 {
            try await withTimeout("the scheduler going to sleep", seconds: 10) { await clock.waitForSleepers(1) }
            guard let next = clock.nextDeadline, next <= until else { break }
            await clock.advance(to: next)
        }
        // Leave the scheduler parked before reading the log.
        try await withTimeout("the scheduler going to sleep", seconds: 10) { await clock.waitForSleepers(1) }
        return log
    }

    /// The clock moves past a run before the `run()` task first gets a thread (a flow test's
    /// `advance` right after the host starts, on a busy machine): the run still fires, once.
    @Test(arguments: TestDatabase.kinds) func aRunDueBeforeTheTaskStartsStillFires(database: TestDatabase) async throws {
        let store = try SchedulerStore(path: database.location("schedules"))
        let entry = SchedulerEntry(bot: "news", name: "morning", cron: try CronExpression("0 9 * * 1-5"),
                                   timeZone: try #require(TimeZone(identifier: "Europe/Berlin")))
        let clock = ManualClock(start: try Self.date("2026-12-01T07:59:00Z"))
        let log = FireLog()
        let scheduler = CronScheduler(entries: [entry], store: store, clock: clock) { log.append($0) }
        await clock.advance(to: try Self.date("2026-12-01T08:01:00Z"))
        let task = Task { await scheduler.run() }
        defer { task.cancel() }
        try await withTimeout("the scheduler going to sleep", seconds: 10) { await clock.waitForSleepers(1) }
        #expect(log.times == ["2026-12-01T08:00:00Z"])
        #expect(try store.lastFire(bot: "news", schedule: "morning") == (try Self.date("2026-12-01T08:00:00Z")))
    }

    @Test(arguments: TestDatabase.kinds) func firesOnTimeAndRemembers(database: TestDatabase) async throws {
        let store = try SchedulerStore(path: database.location("schedules"))
        let entry = SchedulerEntry(bot: "news", name: "morning", cron: try CronExpression("0 9 * * 1-5"),
                                   timeZone: try #require(TimeZone(identifier: "Europe/Berlin")))
        // Friday 2026-11-27 06:00Z → Friday 09:00 Berlin, then Monday.
        let log = try await Self.fires([entry], store: store, start: try Self.date("2026-11-27T06:00:00Z"), until: try Self.date("2026-11-30T12:00:00Z"))
        #expect(log.times == ["2026-11-27T08:00:00Z", "2026-11-30T08:00:00Z"])
        #expect(log.all.allSatisfy { $0.bot == "news" && $0.schedule == "morning" })
        #expect(try store.lastFire(bot: "news", schedule: "morning") == (try Self.date("2026-11-30T08:00:00Z")))
    }

    @Test func theAutumnRepeatedHourFiresOnce() async throws {
        let fired = try await Self.berlinFires(["half past two": "30 2 * * *", "hourly": "0 * * * *"],
                                               from: "2026-10-24T22:30:00Z", until: "2026-10-25T02:30:00Z")
        // Autumn: wall times 02:00–02:59 happen twice and fire once, at their first
        // occurrence (CronExpression.nextFire's rule), so 01:00Z (the second 02:00) is skipped.
        #expect(fired == [
            "hourly 2026-10-24T23:00:00Z", "hourly 2026-10-25T00:00:00Z", "half past two 2026-10-25T00:30:00Z",
            "hourly 2026-10-25T02:00:00Z",
        ])
    }

    @Test func theSpringGapFiresOnceAtItsEndThroughTheScheduler() async throws {
        // Berlin springs forward on 2026-03-29: 02:00 CET is 03:00 CEST (01:00Z), and 02:00–02:59
        // never happens. Each schedule fires once, when the gap ends, and the next night as usual.
        let fired = try await Self.berlinFires(["half past two": "30 2 * * *", "every 20 min at two": "*/20 2 * * *"],
                                               from: "2026-03-28T23:00:00Z", until: "2026-03-30T01:00:00Z")
        #expect(fired.sorted() == [
            "every 20 min at two 2026-03-29T01:00:00Z", "every 20 min at two 2026-03-30T00:00:00Z",
            "every 20 min at two 2026-03-30T00:20:00Z", "every 20 min at two 2026-03-30T00:40:00Z",
            "half past two 2026-03-29T01:00:00Z", "half past two 2026-03-30T00:30:00Z",
        ])
    }

    /// What `schedules` (name → cron, Berlin time) fire between the two instants, as
    /// "name time" lines in the order they fired.
    static func berlinFires(_ schedules: KeyValuePairs<String, String>, from start: String, until end: String) async throws -> [String] {
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        let entries = try schedules.map { SchedulerEntry(bot: "b", name: $0.key, cron: try CronExpression($0.value), timeZone: berlin) }
        let log = try await fires(entries, store: try SchedulerStore(path: ":memory:"), start: try date(start), until: try date(end))
        return log.all.map { "\($0.schedule) \($0.due.formatted(.iso8601))" }
    }

    struct CatchUpCase: Sendable, CustomStringConvertible {
        var description: String
        var cron = "0 9 * * *"
        var policy = Schedule.CatchUp.once
        var window = Duration.seconds(3600)
        var lastFire: String? = "2026-01-01T09:00:00Z"
        var restart: String
        var fires: [String]
    }

    static let catchUpCases: [CatchUpCase] = [
        CatchUpCase(description: "missed by 30 min, once", restart: "2026-01-02T09:30:00Z", fires: ["2026-01-02T09:00:00Z catch-up"]),
        CatchUpCase(description: "missed by 90 min, outside the window", restart: "2026-01-02T10:30:00Z", fires: []),
        CatchUpCase(description: "missed by 90 min, 2h window", window: .seconds(7200), restart: "2026-01-02T10:30:00Z",
                    fires: ["2026-01-02T09:00:00Z catch-up"]),
        CatchUpCase(description: "policy none", policy: .none, restart: "2026-01-02T09:30:00Z", fires: []),
        CatchUpCase(description: "several missed runs fire once, the latest", cron: "*/15 * * * *", lastFire: "2026-01-02T08:00:00Z",
                    restart: "2026-01-02T09:20:00Z", fires: ["2026-01-02T09:15:00Z catch-up"]),
        CatchUpCase(description: "nothing missed", lastFire: "2026-01-02T09:00:00Z", restart: "2026-01-02T09:30:00Z", fires: []),
        CatchUpCase(description: "a new schedule has no history", lastFire: nil, restart: "2026-01-02T09:30:00Z", fires: []),
        CatchUpCase(description: "days down, only the last run counts", lastFire: "2025-12-01T09:00:00Z",
                    restart: "2026-01-02T09:59:00Z", fires: ["2026-01-02T09:00:00Z catch-up"]),
    ]

    @Test(arguments: catchUpCases, TestDatabase.kinds)
    func catchUpAfterDowntime(_ testCase: CatchUpCase, database: TestDatabase) async throws {
        let store = try SchedulerStore(path: database.location("schedules"))
        if let last = testCase.lastFire { try store.setLastFire(bot: "news", schedule: "s", try Self.date(last)) }
        let entry = SchedulerEntry(bot: "news", name: "s", cron: try CronExpression(testCase.cron), catchUp: testCase.policy,
                                   catchUpWindow: testCase.window)
        let restart = try Self.date(testCase.restart)
        let log = try await Self.fires([entry], store: store, start: restart, until: restart)
        #expect(log.times == testCase.fires)
        // Whatever happened, the missed runs are settled: a second restart fires nothing more.
        let again = try await Self.fires([entry], store: store, start: restart.addingTimeInterval(60), until: restart.addingTimeInterval(60))
        #expect(again.all.isEmpty)
    }

    @Test func entriesFromBotFilesDefaultToCatchingUpOnce() throws {
        let yaml = """
            - name: morning
              cron: "0 9 * * 1-5"
              timezone: America/New_York
              broadcast: { to: ["group:all"], send: { text: hi } }
            - name: nightly
              cron: "@daily"
              catch_up: none
              catch_up_window: 2h
              broadcast: { to: ["group:all"], send: { text: hi } }
            """
        let schedules = try YAMLDecoder().decode([Schedule].self, from: yaml, file: "bots/news.yaml")
        let morning = try SchedulerEntry(bot: "news", schedule: schedules[0])
        #expect(morning.catchUp == .once && morning.catchUpWindow == .seconds(3600))
        #expect(morning.timeZone.identifier == "America/New_York")
        let nightly = try SchedulerEntry(bot: "news", schedule: schedules[1])
        #expect(nightly.catchUp == .none && nightly.catchUpWindow == .seconds(7200))
    }
}
