/// What a bot can do, by name: what `GET /api/v1/bots` lists.
public struct BotOutline: Sendable, Equatable {
    /// A cron schedule.
    public struct ScheduleLine: Sendable, Equatable {
        public var name: String
        /// The cron expression as written.
        public var cron: String
        /// The time zone's identifier (`UTC` unless set).
        public var timezone: String
    }

    /// Command names (without the prefix), sorted.
    public var commands: [String]
    /// Flow names, sorted, each with its step names, sorted.
    public var flows: [String: [String]]
    /// How many triggers (`match:` / `contains:`).
    public var triggers: Int
    /// Broadcast schedules, in file order.
    public var schedules: [ScheduleLine]
    /// The hand-off queues the bot posts to, sorted.
    public var queues: [String]
}

extension CompiledBot {
    /// The bot's commands, flows, triggers, schedules and queues by name.
    public var outline: BotOutline {
        BotOutline(commands: Set(commands.values.map(\.name)).sorted(),
                   flows: flows.mapValues { $0.keys.sorted() },
                   triggers: triggers.count,
                   schedules: broadcastSchedules.map {
                       BotOutline.ScheduleLine(name: $0.entry.name, cron: $0.entry.cron.source, timezone: $0.entry.timeZone.identifier)
                   },
                   queues: queues.sorted())
    }
}
