import Foundation
import ParleyCore

/// The host side of broadcasts: at start, unfinished jobs resume and the cron scheduler
/// starts over every bot's broadcast schedules (both on the host clock); at stop, both end.
extension BotHost {
    func startBroadcasts(runtimes: [BotRuntime]) {
        guard let service = options.broadcasts else { return }
        let tracker = self.tracker
        let byBot = Dictionary(runtimes.map { ($0.bot.id, $0) }, uniquingKeysWith: { first, _ in first })
        var tasks: [Task<Void, Never>] = []
        tracker.begin()
        tasks.append(Task {
            defer { tracker.end() }
            do {
                _ = try await service.runUnfinished { bot in byBot[bot].map { BroadcastRoute.client($0.client) } }
            } catch {
                self.logger.log(.error, at: self.clock.now(), bot: nil, "broadcasts not resumed", ["error": "\(error)"])
            }
        })
        let schedules = runtimes.flatMap { runtime in runtime.bot.broadcastSchedules.map { (runtime, $0) } }
        if let store = options.schedules, !schedules.isEmpty {
            let byName = Dictionary(schedules.map { ("\($0.0.bot.id)\u{0}\($0.1.entry.name)", $0) }, uniquingKeysWith: { first, _ in first })
            let logger = self.logger, clock = self.clock
            let cron = CronScheduler(entries: schedules.map(\.1.entry), store: store, clock: clock,
                                     log: { logger.log(.warn, at: clock.now(), bot: nil, $0, [:]) }) { fire in
                guard let (runtime, schedule) = byName["\(fire.bot)\u{0}\(fire.schedule)"] else { return }
                // The job is sent in its own task, so a long broadcast never delays another schedule.
                tracker.begin()
                Task {
                    defer { tracker.end() }
                    await runtime.runScheduledBroadcast(schedule, fire: fire, service: service)
                }
            }
            cronSchedulers.withLock { $0.append(cron) }
            tasks.append(Task { await cron.run() })
        }
        broadcastTasks.withLock { $0 += tasks }
    }

    func stopBroadcasts() {
        cronSchedulers.withLock { $0.removeAll() }
        for task in broadcastTasks.withLock({ tasks in defer { tasks.removeAll() }; return tasks }) { task.cancel() }
    }
}
