import Foundation
import ParleyCore

/// Fires schedules on the injected clock (so flow tests drive it with `advance`).
///
/// At start it catches up on runs missed while the host was down (per entry's policy),
/// then sleeps until the earliest next run, fires what is due, and repeats until cancelled.
/// Each fire is handed to `handler` and then recorded in the `SchedulerStore`; the handler
/// is awaited before the next fire, so it should store its job and start long work in a
/// task of its own. A crash between the two makes the run fire again at restart, with the
/// same `ScheduleFire.jobID`, which finds the job already stored instead of sending twice.
public actor CronScheduler {
    /// Called for every due run.
    public typealias Handler = @Sendable (ScheduleFire) async -> Void

    let entries: [SchedulerEntry]
    let store: SchedulerStore
    let clock: any ParleyClock
    let handler: Handler
    let log: @Sendable (String) -> Void
    /// Per entry: runs at or before this instant are done or skipped.
    var cursors: [Date]
    /// Fires whose handler has not returned yet.
    private var firing = 0
    /// The clock's time when the scheduler was made (the host's start): catch-up looks at
    /// runs missed up to here, not up to whenever the `run()` task first gets a thread, so
    /// a clock moved on meanwhile (a flow test's `advance`) still fires the runs in between.
    private let startedAt: Date

    /// A scheduler for `entries`; nothing fires before `run()`.
    public init(entries: [SchedulerEntry], store: SchedulerStore, clock: any ParleyClock,
                log: @escaping @Sendable (String) -> Void = { _ in }, handler: @escaping Handler) {
        self.entries = entries
        self.store = store
        self.clock = clock
        self.handler = handler
        self.log = log
        startedAt = clock.now()
        self.cursors = Array(repeating: startedAt, count: entries.count)
    }

    /// Catches up, then fires runs as they come due; returns when cancelled (or when no
    /// entry will ever fire again). Storage errors are logged and the schedule goes on.
    public func run() async {
        await catchUp()
        // Bounded by cancellation: every round sleeps until a future instant or returns.
        while !Task.isCancelled {
            guard let next = nextDue() else {
                log("scheduler: no schedule will fire again")
                return
            }
            do { try await clock.sleep(until: next) } catch { return }
            await fireDue(at: clock.now())
        }
    }

    /// The runs each entry would fire next, for `parley` to show.
    public func upcoming() -> [(entry: SchedulerEntry, next: Date?)] {
        entries.indices.map { (entries[$0], entries[$0].cron.nextFire(after: cursors[$0], in: entries[$0].timeZone)) }
    }

    // MARK: - Internals

    func nextDue() -> Date? {
        entries.indices.compactMap { entries[$0].cron.nextFire(after: cursors[$0], in: entries[$0].timeZone) }.min()
    }

    /// At start: for each entry with a stored last fire, the latest run missed since then;
    /// fired once if the policy is `once` and it is younger than the window. A new entry
    /// (never fired) starts from the scheduler's making: it does not fire runs from before it
    /// existed.
    func catchUp() async {
        let now = startedAt
        for (index, entry) in entries.enumerated() {
            // Already fired since the start (a host's idle check fires what is due itself).
            guard cursors[index] <= now else { continue }
            let last: Date?
            do { last = try store.lastFire(bot: entry.bot, schedule: entry.name) } catch {
                log("scheduler: \(error)")
                continue
            }
            guard let last else {
                record(entry, now)
                continue
            }
            guard let missed = latestRun(of: entry, after: last, upTo: now) else { continue }
            let late = now.timeIntervalSince(missed)
            if entry.catchUp == .once && late <= entry.catchUpWindow.timeInterval {
                await fire(entry, due: missed, catchUp: true)
            } else {
                log("scheduler: \(entry.bot)/\(entry.name) missed its run due \(missed.formatted(.iso8601)) (\(Int(late))s ago); catch_up is \(entry.catchUp.rawValue), window \(DurationFormat.format(entry.catchUpWindow))")
                record(entry, missed)
            }
        }
    }

    /// Fires, for every entry with a run due at or before `now`, its latest such run (a
    /// host that stalled past several runs sends one, not a burst).
    func fireDue(at now: Date) async {
        let due = entries.indices.compactMap { index -> (Int, Date)? in
            guard let run = latestRun(of: entries[index], after: cursors[index], upTo: now) else { return nil }
            return (index, run)
        }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }
        for (index, run) in due {
            cursors[index] = max(cursors[index], now)
            await fire(entries[index], due: run, catchUp: false)
        }
    }

    /// The last run of `entry` in `(after, upTo]`, nil if none. Starts no earlier than the
    /// catch-up window before `upTo` plus a day, so a long downtime does not walk years of
    /// minutes; bounded by a step count either way.
    func latestRun(of entry: SchedulerEntry, after: Date, upTo: Date) -> Date? {
        let horizon = upTo.addingTimeInterval(-(entry.catchUpWindow.timeInterval + 86_400))
        var cursor = max(after, horizon)
        var latest: Date?
        for _ in 0..<100_000 {
            guard let next = entry.cron.nextFire(after: cursor, in: entry.timeZone), next <= upTo else { break }
            latest = next
            cursor = next
        }
        // Something due before the horizon but after `after` counts too (it is only older).
        if latest == nil, horizon > after, let next = entry.cron.nextFire(after: after, in: entry.timeZone), next <= upTo {
            latest = next
        }
        return latest
    }

    private func fire(_ entry: SchedulerEntry, due: Date, catchUp: Bool) async {
        firing += 1
        defer { firing -= 1 }
        await handler(ScheduleFire(bot: entry.bot, schedule: entry.name, due: due, isCatchUp: catchUp))
        record(entry, due)
    }

    /// True while a fire's handler runs: the run is taken (its cursor moved) but its work may
    /// not have started yet, so a host checking for idle must wait.
    var isFiring: Bool { firing > 0 }

    private func record(_ entry: SchedulerEntry, _ instant: Date) {
        do { try store.setLastFire(bot: entry.bot, schedule: entry.name, instant) } catch { log("scheduler: \(error)") }
    }
}
