import Foundation
import ParleyCore
import Synchronization

/// Runs bots: one client and runtime per bot, a shared deadline timer on the injected clock,
/// one state store. A bot that fails (to compile, to connect, in an action) is logged and
/// never stops the others.
///
///     let host = BotHost(store: MemoryBotStore(), clock: clock)
///     try host.add(bot, connection: BotConnection(transport: hub.connect(user: "support")))
///     await host.start()
///     … await host.waitUntilIdle()
public final class BotHost: Sendable {
    /// Where conversation states, greetings and tickets are kept.
    public let store: any BotStore
    /// The time of timeouts, `wait` and log lines (a `ManualClock` in tests).
    public let clock: any ParleyClock
    /// Where event lines go.
    public let logger: BotLogger
    /// Limits and grace periods.
    public let options: BotHostOptions
    let timer: DeadlineTimer
    let tracker = IdleTracker()
    let runtimes = Mutex<[BotRuntime]>([])
    let started = Mutex<[String]>([])
    /// The resume of unfinished broadcasts (BotHost+Broadcasts).
    let broadcastTasks = Mutex<[Task<Void, Never>]>([])
    /// The cron scheduler as last planned: the idle check fires its due runs.
    let cron = Mutex<RunningCron?>(nil)
    /// Each running bot's runtime by id, for resumed broadcast jobs.
    let broadcastRoutes = Mutex<[String: BotRuntime]>([:])

    /// Creates a host with no bots.
    public init(store: any BotStore, clock: any ParleyClock = SystemClock(), logger: BotLogger = .silent,
                options: BotHostOptions = BotHostOptions()) {
        self.store = store
        self.clock = clock
        self.logger = logger
        self.options = options
        timer = DeadlineTimer(clock: clock)
        (store as? DatabaseBotStore)?.reportWriteFailures { [clock] line in logger.log(.error, at: clock.now(), bot: nil, line, [:]) }
    }

    /// Adds a compiled bot with its connection (before `start()`).
    public func add(_ bot: CompiledBot, connection: BotConnection) throws {
        let runtime = try BotRuntime(bot: bot, connection: connection, store: store, timer: timer, tracker: tracker,
                                     logger: logger, options: options, clock: clock)
        runtimes.withLock { $0.append(runtime) }
    }

    /// Connects every bot; a bot that cannot connect is logged and left out. Returns the ids
    /// of the bots that started.
    @discardableResult
    public func start() async -> [String] {
        let all = runtimes.withLock { $0 }
        let peers = Set(all.map(\.transport.userID))
        var running: [ScheduledBot] = []
        for runtime in all where await start(runtime, peers: peers) { running.append((runtime, await runtime.bot)) }
        started.withLock { $0 = running.map(\.runtime.id) }
        startBroadcasts(running)
        return running.map(\.runtime.id)
    }

    /// Starts one bot; false (logged) if it cannot connect.
    func start(_ runtime: BotRuntime, peers: Set<String>) async -> Bool {
        do {
            try await runtime.start(peers: peers)
            let bot = await runtime.bot
            logger.log(.info, at: clock.now(), bot: bot.id, "bot started",
                       ["commands": String(Set(bot.commands.values.map(\.name)).count),
                        "triggers": String(bot.triggers.count), "flows": String(bot.flows.count)])
            return true
        } catch {
            logger.log(.error, at: clock.now(), bot: runtime.id, "bot not started", ["error": "\(error)"])
            return false
        }
    }

    /// The ids of the bots that started.
    public var runningBots: [String] { started.withLock { $0 } }

    /// The runtime of bot `id`, if the host has it.
    func runtime(_ id: String) -> BotRuntime? { runtimes.withLock { $0.first { $0.id == id } } }

    /// The runtimes of the bots that started (the admin API acts through them).
    func startedRuntimes() -> [BotRuntime] {
        let ids = Set(runningBots)
        return runtimes.withLock { $0 }.filter { ids.contains($0.id) }
    }

    /// Sends and reactions of bot `id` waiting in its outbox for the server (nil: no such bot).
    public func queuedSends(of id: String) async -> Int? {
        guard let runtime = runtime(id) else { return nil }
        return await runtime.client.queuedSends
    }

    /// What bot `id` keeps in memory now: conversations (lanes), greetings known, profiles
    /// cached and conversations in its client's list — each bounded by
    /// `BotHostOptions.conversationLimit` (nil: no such bot).
    public func memoryCounts(of id: String) async -> BotMemoryCounts? {
        guard let runtime = runtime(id) else { return nil }
        return await runtime.memoryCounts()
    }

    /// The earliest pending deadline (flow timeout, `wait`, the next cron run), if any: a
    /// virtual-time driver (`parley test`) moves its clock there next, even before the task
    /// that waits for it sleeps on the clock.
    public func nextDeadline() async -> Date? {
        var earliest = timer.nextDeadline
        if let cron = cron.withLock({ $0?.scheduler }), let due = await cron.nextDue() { earliest = min(earliest ?? due, due) }
        return earliest
    }

    /// Returns when nothing is in flight: every event the server delivered has been handled,
    /// every action finished, and no timer is due at the clock's now. Timers due now are
    /// fired by this call itself, so a test can `advance` a virtual clock and then wait.
    /// Cancelling the calling task ends the wait early.
    public func waitUntilIdle() async {
        let all = runtimes.withLock { $0 }
        // Each round either finds the host idle or has seen work finish; the cap is a guard
        // against a bot that keeps itself busy forever (a `wait: 0s` loop).
        for _ in 0..<10_000 {
            if Task.isCancelled { return }
            for runtime in all { await runtime.drainInbound() }
            await tracker.waitUntilZero()
            if timer.fireDue() > 0 { continue }
            // Cron runs due now fire here too (as timers do), not only when the cron task
            // gets to run: a fire starts tracked work, so the next round waits for it.
            var cronFiring = false
            if let cron = cron.withLock({ $0?.scheduler }) {
                await cron.fireDue(at: clock.now())
                cronFiring = await cron.isFiring
            }
            if cronFiring { await Task.yield() }
            if tracker.active > 0 || cronFiring { continue }
            // Everything delivered handed over first, then nothing in flight: work a late
            // hand-over queued is counted by the time the client counts the event processed.
            var handedOver = true
            for runtime in all where !(await runtime.hasHandledEverythingDelivered()) {
                handedOver = false
                break
            }
            if handedOver && tracker.active == 0 && !timer.hasDue() {
                // What the handling wrote behind is in the store too (a test reads it next).
                store.flushWrites()
                return
            }
        }
        logger.log(.warn, at: clock.now(), bot: nil, "still busy after 10000 idle checks")
    }

    /// What `waitUntilIdle` rests on, now (for a flow test's failure message).
    public func idleReport() async -> String {
        var parts: [String] = []
        for runtime in runtimes.withLock({ $0 }) { parts.append(await runtime.idleFigures()) }
        return (parts + ["\(tracker.active) pieces of work in flight", "timers due: \(timer.hasDue())"]).joined(separator: "; ")
    }

    /// Stops: new messages are no longer taken; work in flight gets `options.stopGrace` to
    /// finish; then clients close (unsent items stay durable in their outboxes).
    public func stop() async {
        let all = runtimes.withLock { $0 }
        let tracker = self.tracker
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await tracker.waitUntilZero() }
            group.addTask { [grace = options.stopGrace] in try? await Task.sleep(for: grace) }
            await group.next()
            group.cancelAll()
        }
        timer.stop()
        stopBroadcasts()
        for runtime in all {
            await runtime.stop()
            logger.log(.info, at: clock.now(), bot: runtime.id, "bot stopped")
        }
        store.flushWrites()
    }
}
