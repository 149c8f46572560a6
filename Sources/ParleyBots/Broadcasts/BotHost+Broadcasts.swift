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
                _ = try await service.runUnfinished { bot in self.broadcastRoutes.withLock { $0[bot] }.map { service.route(through: $0.client) } }
            } catch {
                self.logger.log(.error, at: self.clock.now(), bot: nil, "broadcasts not resumed", ["error": "\(error)"])
            }
        }
        broadcastTasks.withLock { $0.append(resume) }
        planSchedules(bots)
    }

    /// Starts the unfinished jobs of the running bots `ids` that no run of this process is
    /// sending: those of bots that started later (a reload, or a process taking over another's
    /// bots), and on a shared database jobs another process (or `parley broadcast`) created for
    /// a bot this one runs. Each job runs in a task of its own; returns how many started.
    @discardableResult
    public func pickUpBroadcasts(of ids: Set<String>) -> Int {
        guard let service = options.broadcasts, let jobs = try? service.store.unfinishedJobs() else { return 0 }
        let busy = service.runningJobs
        var started = 0
        for job in jobs where ids.contains(job.bot) && !busy.contains(job.id) && job.state != .paused && job.state != .cancelled {
            guard let runtime = broadcastRoutes.withLock({ $0[job.bot] }) else { continue }
            spawnRun(of: job, route: service.route(through: runtime.client), service: service)
            started += 1
        }
        return started
    }

    /// On a shared database: joins the running jobs of bots this process does not run (`held`
    /// are those it does), sending through `route(bot)` (the bot's account as a helper uses
    /// it). The runs claim chunks of recipients beside the holder's (see `RunClaims`), so the
    /// processes send a big job together. A job with a rate is left to its bot's holder: the
    /// rate is the job's, and more senders would not send it sooner. Returns how many joined.
    @discardableResult
    public func helpBroadcasts(notHeld held: Set<String>, route: (String) -> BroadcastRoute?) -> Int {
        guard let service = options.broadcasts, service.store.isShared, let jobs = try? service.store.unfinishedJobs() else { return 0 }
        let busy = service.runningJobs
        var joined = 0
        for job in jobs where !held.contains(job.bot) && !busy.contains(job.id) && job.ratePerSecond == nil && job.pending > 0 {
            guard let route = route(job.bot) else { continue }
            spawnRun(of: job, route: route, service: service)
            joined += 1
        }
        return joined
    }

    /// Runs `job` along `route` in a task of the host (counted as work in flight, cancelled at stop).
    private func spawnRun(of job: BroadcastJob, route: BroadcastRoute, service: BroadcastService) {
        let tracker = self.tracker
        tracker.begin()
        let task = Task {
            defer { tracker.end() }
            do throws(BroadcastError) {
                _ = try await service.run(job.id, route: route)
            } catch {
                // Started meanwhile, or paused or cancelled since the list was read: not a failure.
                guard error.code != .alreadyRunning && error.code != .invalidState else { return }
                self.logger.log(.error, at: self.clock.now(), bot: job.bot, "broadcast not run", ["job": job.id, "error": "\(error)"])
            }
        }
        broadcastTasks.withLock { $0.append(task) }
    }

    /// Starts the cron scheduler over `bots`' schedules, replacing the one running (a
    /// reload). A schedule that is new or whose timing changed starts from now, as at a
    /// first start: a reload never fires a run the new timing "missed" before it existed.
    /// One that is unchanged goes on from its stored last run, so a run is never fired twice
    /// (and a run the old scheduler is firing at this moment finds its job already stored).
    /// `resuming`: bots whose schedules go on from their stored last runs even though this
    /// scheduler did not have them (bots taken over from another process).
    func planSchedules(_ bots: [ScheduledBot], resuming: Set<String> = []) {
        broadcastRoutes.withLock { routes in
            routes = Dictionary(bots.map { ($0.bot.id, $0.runtime) }, uniquingKeysWith: { first, _ in first })
        }
        let previous = cron.withLock { current in
            defer { current = nil }
            return current
        }
        previous?.task.cancel()
        if let service = options.broadcasts { importAudiences(bots.map(\.bot), into: service.store) }
        guard let service = options.broadcasts, let store = options.schedules else { return }
        let schedules = bots.flatMap { bot in bot.bot.broadcastSchedules.map { (bot.runtime, $0) } }
        guard !schedules.isEmpty else { return }
        let before = Set(previous?.entries ?? [])
        if previous != nil {
            let now = clock.now()
            for (_, schedule) in schedules where !before.contains(schedule.entry) && !resuming.contains(schedule.entry.bot) {
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

    /// Adds each audience's `import` file to its members, once per bot and audience (the
    /// first start that has it, also by a reload): a file edited later is not read again, and
    /// someone who opted out before stays out. A file that cannot be read is logged and
    /// tried again at the next start.
    private func importAudiences(_ bots: [CompiledBot], into store: BroadcastStore) {
        for bot in bots {
            for audience in bot.audiences {
                guard let file = audience.importFile else { continue }
                do {
                    var targets = BroadcastRecipients()
                    try targets.append(file: file, displayPath: file)
                    if let added = try store.importMembers(bot: bot.id, audience: audience.name, file: file, targets: targets.channels, now: clock.now()) {
                        logger.log(.info, at: clock.now(), bot: bot.id, "audience imported", ["audience": audience.name, "file": file, "added": String(added)])
                    }
                } catch {
                    logger.log(.error, at: clock.now(), bot: bot.id, "audience not imported", ["audience": audience.name, "error": error.description])
                }
            }
        }
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

// MARK: - Jobs from outside the bot files

/// Broadcast jobs started, paused, resumed and cancelled by an operator (the admin API):
/// the same durable jobs, sent through the bot's client as its schedules are.
extension BotHost {
    /// Stores the job of `order` and starts sending it through its bot (in a task of the
    /// host: `waitUntilIdle` waits for it; `stop` leaves its rest to the next start). An
    /// order whose id exists returns that job (sending it if it is running and not sent
    /// yet), with `created` false.
    public func startBroadcast(_ order: BroadcastOrder) async throws(BroadcastError) -> (job: BroadcastJob, created: Bool) {
        let service = try broadcastService()
        var recipients = BroadcastRecipients()
        do { try recipients.append(targets: order.to) } catch { throw BroadcastError(error.code, "to: \(error.message)") }
        let runtime = try startedRuntime(sending: order.bot)
        let (job, created) = try await runtime.createBroadcast(order, recipients: recipients, service: service)
        guard job.bot == order.bot else {
            throw BroadcastError(.invalidState, "broadcast '\(job.id)' exists and belongs to bot '\(job.bot)', not '\(order.bot)'")
        }
        if job.state == .running { launchBroadcast(job.id, through: runtime, service: service) }
        return (job, created)
    }

    /// Pauses job `id` (see `BroadcastService.pause`): once this returns, nothing more is
    /// sent until it is resumed, also after a restart.
    public func pauseBroadcast(_ id: String) async throws(BroadcastError) -> BroadcastJob {
        try await broadcastService().pause(id)
    }

    /// Cancels job `id` for good (see `BroadcastService.cancel`).
    public func cancelBroadcast(_ id: String) async throws(BroadcastError) -> BroadcastJob {
        try await broadcastService().cancel(id)
    }

    /// Resumes paused job `id` and sends the rest through its bot; its bot must be running.
    public func resumeBroadcast(_ id: String) throws(BroadcastError) -> BroadcastJob {
        let service = try broadcastService()
        guard let job = try service.store.job(id) else { throw BroadcastError(.unknownJob, "no broadcast with id '\(id)'") }
        // A job that is not paused is refused for its state, whichever bot sends it.
        let runtime = job.state == .paused ? try startedRuntime(sending: job.bot) : nil
        let resumed = try service.resume(id)
        if let runtime { launchBroadcast(id, through: runtime, service: service) }
        return resumed
    }

    /// Starts a new job for the failed recipients of job `id` (see `BroadcastService.retryFailed`)
    /// and sends it through its bot, which must be running.
    public func retryFailedBroadcast(_ id: String, newID: String?) throws(BroadcastError) -> (job: BroadcastJob, created: Bool) {
        let service = try broadcastService()
        guard let source = try service.store.job(id) else { throw BroadcastError(.unknownJob, "no broadcast with id '\(id)'") }
        let runtime = try startedRuntime(sending: source.bot)
        let (job, created) = try service.retryFailed(id, newID: newID ?? UUID().uuidString.lowercased())
        if job.state == .running { launchBroadcast(job.id, through: runtime, service: service) }
        return (job, created)
    }

    private func broadcastService() throws(BroadcastError) -> BroadcastService {
        guard let service = options.broadcasts else { throw BroadcastError(.storage, "this host keeps no broadcast jobs") }
        return service
    }

    private func startedRuntime(sending bot: String) throws(BroadcastError) -> BotRuntime {
        guard let runtime = startedRuntimes().first(where: { $0.id == bot }) else {
            throw BroadcastError(.botNotRunning, "bot '\(bot)' is not running in this host")
        }
        return runtime
    }

    /// Sends job `id` in a task of the host, counted as work in flight and cancelled at stop.
    private func launchBroadcast(_ id: String, through runtime: BotRuntime, service: BroadcastService) {
        let tracker = self.tracker, logger = self.logger, clock = self.clock
        tracker.begin()
        let task = Task {
            defer { tracker.end() }
            do throws(BroadcastError) {
                _ = try await service.run(id, route: service.route(through: runtime.client))
            } catch where error.code == .alreadyRunning {
                // Sending already (an order repeated with its id).
            } catch {
                logger.log(.error, at: clock.now(), bot: runtime.id, "broadcast failed", ["job": id, "error": error.description])
            }
        }
        broadcastTasks.withLock { $0.append(task) }
        // Forgotten once done: jobs started over a long run do not pile up here.
        Task { [weak self] in
            await task.value
            self?.broadcastTasks.withLock { $0.removeAll { $0 == task } }
        }
    }
}
