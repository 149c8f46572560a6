import YAMLCoding
import Foundation

/// A timed job: a cron expression in a time zone, and a broadcast or actions.
public struct Schedule: YAMLNodeDecodable, Sendable {
    /// Unique within the bot; keys the last-fired time in storage.
    public var name: Located<String>
    /// Five-field cron expression or a shortcut such as `@daily`.
    public var cron: Located<String>
    /// IANA time zone name; default UTC.
    public var timezone: Located<String>?
    /// `none` (default) or `once`: after downtime, fire a missed run once.
    public var catchUp: Located<String>?
    /// How old a missed run may be and still be caught up (`1h`).
    public var catchUpWindow: Located<String>?
    /// The broadcast to run.
    public var broadcast: Located<BroadcastAction>?
    /// A `do:` list, read only so that validation can refuse it by name (see `checkSchedules`).
    public var actions: Located<ActionList>?
    /// Where the schedule's mapping starts.
    public var mark: Mark

    /// Reads the schedule's mapping.
    public init(yaml reader: NodeReader) throws {
        mark = reader.mark
        try reader.expectMapping()
        name = try reader.decode(Located<String>.self, forKey: "name")
        cron = try reader.decode(Located<String>.self, forKey: "cron")
        timezone = reader.decodeIfPresent(Located<String>.self, forKey: "timezone")
        catchUp = reader.decodeIfPresent(Located<String>.self, forKey: "catch_up")
        catchUpWindow = reader.decodeIfPresent(Located<String>.self, forKey: "catch_up_window")
        broadcast = reader.decodeIfPresent(Located<BroadcastAction>.self, forKey: "broadcast")
        actions = reader.decodeIfPresent(Located<ActionList>.self, forKey: "do")
    }

    /// What to do about runs missed while the host was down.
    public enum CatchUp: String, Sendable { case none, once }

    /// The parsed cron expression, if valid.
    public var cronExpression: CronExpression? { try? CronExpression(cron.value) }
    /// The time zone (UTC when not given), if it exists.
    public var timeZone: TimeZone? { TimeZone(identifier: timezone?.value ?? "UTC") }
    /// The catch-up policy: `once` when not given (a run missed by less than the window fires
    /// once at start, so a host restarted shortly after a run's time still sends it); `none` also for an invalid value, which
    /// validation reports.
    public var catchUpPolicy: CatchUp {
        guard let catchUp else { return .once }
        return CatchUp(rawValue: catchUp.value) ?? .none
    }
}
