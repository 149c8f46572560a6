import Foundation
import ParleyCore

/// The host side of broadcasts: at start, unfinished jobs resume and the cron scheduler
/// starts over every bot's broadcast schedules (both on the host clock); a reload re-plans
/// the schedules; at stop, both end.
extension BotHost {
    /// The running bots as the scheduler needs them: each runtime with the bot it runs now.
    typealias ScheduledBot = (runtime: BotRuntime, bot: CompiledBot)

    func startBroadcasts(_ bots: [ScheduledBot]) {
        guard let service = options.broadcasts else { return }
        let tracker = self.tracker
        tracker.begin()
        let resume = Task {
            defer { tracker.end() }
            do {
                _ = try await service.runUnfinished { bot in self.broadcastRoutes.withLock { $0[bot] }.map { BroadcastRoute.client($0.client) } }
            } catch {
                self.logger.log(.error, at: self.clock.now(), bot: nil, "broadcasts not resumed", ["error": "\(error)"])
            }
        }
        broadcastTasks.withLock { $0.append(resume) }
        planSchedules(bots)
    }

    /// Starts the cron scheduler over `bots`' schedules, replacing the one running (a
    /// reload). A schedule that is new or whose timing changed starts from now, as at a
    /// first start: a reload never fires a run the new timing "missed" before it existed.
    /// One that is unchanged goes on from its stored last run, so a run is never fired twice
    /// (and a run the old scheduler is firing at this moment finds its job already stored).
    func planSchedules(_ bots: [ScheduledBot]) {
        broadcastRoutes.withLock { routes in
            routes = Dictionary(bots.map { ($0.bot.id, $0.runtime) }, uniquingKeysWith: { first, _ in first })
        }
        let previous = cron.withLock { current in
            defer { current = nil }
            return current
        }
        previous?.task.cancel()
        guard let service = options.broadcasts, let store = options.schedules else { return }
        let schedules = bots.flatMap { bot in bot.bot.broadcastSchedules.map { (bot.runtime, $0) } }
        guard !schedules.isEmpty else { return }
        let before = Set(previous?.entries ?? [])
        if previous != nil {
            let now = clock.now()
            for (_, schedule) in schedules where !before.contains(schedule.entry) {
                do { try store.setLastFire(bot: schedule.entry.bot, schedule: schedule.entry.name, now) } catch {
                    logger.log(.error, at: now, bot: schedule.entry.bot, "schedule not re-planned", ["schedule": schedule.entry.name, "error": "\(error)"])
                }
            }
        }
        let byName = Dictionary(schedules.map { ("\($0.1.entry.bot)\u{0}\($0.1.entry.name)", $0) }, uniquingKeysWith: { first, _ in first })
        let logger = self.logger, clock = self.clock, tracker = self.tracker
        let scheduler = CronScheduler(entries: schedules.map(\.1.entry), store: store, clock: clock,
                                      log: { logger.log(.warn, at: clock.now(), bot: nil, $0, [:]) }) { fire in
            guard let (runtime, schedule) = byName["\(fire.bot)\u{0}\(fire.schedule)"] else { return }
            // The job is sent in its own task, so a long broadcast never delays another schedule.
            tracker.begin()
            Task {
                defer { tracker.end() }
                await runtime.runScheduledBroadcast(schedule, fire: fire, service: service)
            }
        }
        cron.withLock { $0 = RunningCron(scheduler: scheduler, entries: schedules.map(\.1.entry), task: Task { await scheduler.run() }) }
    }

    func stopBroadcasts() {
        cron.withLock { current in
            current?.task.cancel()
            current = nil
        }
        for task in broadcastTasks.withLock({ tasks in defer { tasks.removeAll() }; return tasks }) { task.cancel() }
    }
}

/// The cron scheduler of the host's schedules as last planned.
struct RunningCron: Sendable {
    let scheduler: CronScheduler
    let entries: [SchedulerEntry]
    let task: Task<Void, Never>
}
