import Foundation

/// One schedule as the scheduler runs it: when it fires and what to do about runs missed
/// while the host was down.
public struct SchedulerEntry: Sendable, Hashable {
    /// The bot the schedule belongs to.
    public var bot: String
    /// The schedule's name (unique within the bot; keys its stored state).
    public var name: String
    public var cron: CronExpression
    public var timeZone: TimeZone
    /// `once`: a run missed by less than `catchUpWindow` fires once at start; `none`: missed
    /// runs are skipped.
    public var catchUp: Schedule.CatchUp
    public var catchUpWindow: Duration

    /// The default catch-up policy: a run missed during a short outage (a restart, a deploy)
    /// still goes out, once.
    public static let defaultCatchUp = Schedule.CatchUp.once
    /// The default catch-up window.
    public static let defaultCatchUpWindow = Duration.seconds(3600)

    /// Creates an entry.
    public init(bot: String, name: String, cron: CronExpression, timeZone: TimeZone = .gmt,
                catchUp: Schedule.CatchUp = SchedulerEntry.defaultCatchUp, catchUpWindow: Duration = SchedulerEntry.defaultCatchUpWindow) {
        self.bot = bot
        self.name = name
        self.cron = cron
        self.timeZone = timeZone
        self.catchUp = catchUp
        self.catchUpWindow = catchUpWindow
    }

    /// The entry for a bot file's schedule. Bad values (which `parley check` reports with
    /// their position) throw `invalidMessage` naming the schedule.
    public init(bot: String, schedule: Schedule) throws(BroadcastError) {
        let name = schedule.name.value
        func invalid(_ what: String) -> BroadcastError {
            BroadcastError(.invalidMessage, "schedule '\(name)' of bot '\(bot)': \(what)")
        }
        let cron: CronExpression
        do { cron = try CronExpression(schedule.cron.value) } catch { throw invalid(error.message) }
        guard let zone = schedule.timeZone else { throw invalid("unknown time zone '\(schedule.timezone?.value ?? "")'") }
        var policy = Self.defaultCatchUp
        if let text = schedule.catchUp?.value {
            guard let parsed = Schedule.CatchUp(rawValue: text) else { throw invalid("invalid catch_up '\(text)': expected none or once") }
            policy = parsed
        }
        var window = Self.defaultCatchUpWindow
        if let text = schedule.catchUpWindow?.value {
            do { window = try DurationFormat.parse(text) } catch { throw invalid("invalid catch_up_window: \(error.message)") }
        }
        self.init(bot: bot, name: name, cron: cron, timeZone: zone, catchUp: policy, catchUpWindow: window)
    }
}

/// A run of a schedule that is due: handed to the scheduler's handler.
public struct ScheduleFire: Sendable, Hashable {
    public var bot: String
    public var schedule: String
    /// The instant the run was due (for a catch-up, in the past).
    public var due: Date
    /// True when the run was missed while the host was down and is fired late.
    public var isCatchUp: Bool

    /// A job id unique to this run: starting it twice (after a crash) finds the first job.
    public var jobID: String {
        BroadcastUUID.scheduledJob(bot: bot, schedule: schedule, fire: due).uuidString.lowercased()
    }
}
