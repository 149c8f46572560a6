import Foundation
import ParleyCore

/// What a reload changes among the host's bots, decided by the layer that loaded the files.
public struct BotChanges: Sendable {
    /// Bots whose file changed: swapped in, keeping their connection and conversations.
    public var changed: [CompiledBot]
    /// New bots, each with its connection (not connected yet).
    public var added: [(bot: CompiledBot, connection: BotConnection)]
    /// Ids of bots that leave.
    public var removed: [String]
    /// Ids of bots that stop at once, with no grace: this process lost the right to act for
    /// them (its lease on a shared database), so it must not send another message as them.
    /// What they had queued stays durable for the process that takes them over.
    public var abandoned: [String]
    /// The added bots are not new but taken over from another process (a shared database):
    /// their schedules go on from their stored last runs, so a run that came due while no
    /// process ran them still fires, once. (A bot new to the config starts its schedules from now.)
    public var takenOver = false

    /// Changes.
    public init(changed: [CompiledBot] = [], added: [(bot: CompiledBot, connection: BotConnection)] = [], removed: [String] = [],
                abandoned: [String] = []) {
        self.changed = changed
        self.added = added
        self.removed = removed
        self.abandoned = abandoned
    }
}

extension BotHost {
    /// Applies a reload while the bots run. A changed bot is swapped in on its runtime, so
    /// its messages keep their order and none is dropped; conversations keep their state
    /// (one waiting at a step that is gone ends its flow when next read). A leaving bot
    /// finishes the work it has (at most `options.stopGrace`), then disconnects. New bots
    /// connect; the schedules are planned again over the bots now running. Returns the ids
    /// of the new bots that started (one that cannot connect is logged and left out).
    public func apply(_ changes: BotChanges) async -> [String] {
        let leaving = Set(changes.removed + changes.abandoned)
        for id in changes.abandoned {
            guard let runtime = runtime(id) else { continue }
            await options.broadcasts?.interrupt(bot: id)
            await runtime.stop()
            logger.log(.warn, at: clock.now(), bot: id, "bot stopped at once: this process no longer holds it")
        }
        // Its last conversation writes land now, before its lease can pass to another process.
        if !changes.abandoned.isEmpty { store.flushWrites() }
        for id in changes.removed {
            guard let runtime = runtime(id) else { continue }
            await leave(runtime)
        }
        runtimes.withLock { $0.removeAll { leaving.contains($0.id) } }
        var added: [BotRuntime] = []
        for (bot, connection) in changes.added {
            do {
                let runtime = try BotRuntime(bot: bot, connection: connection, store: store, timer: timer, tracker: tracker,
                                             logger: logger, options: options, clock: clock)
                added.append(runtime)
            } catch {
                logger.log(.error, at: clock.now(), bot: bot.id, "bot not started", ["error": "\(error)"])
            }
        }
        runtimes.withLock { $0 += added }
        let all = runtimes.withLock { $0 }
        let peers = Set(all.map(\.transport.userID))
        let replaced = Dictionary(changes.changed.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        var startedNow: [String] = []
        for runtime in all {
            if let bot = replaced[runtime.id] {
                await runtime.replace(with: bot, peers: peers)
                logger.log(.info, at: clock.now(), bot: runtime.id, "bot reloaded")
            } else if added.contains(where: { $0 === runtime }) {
                if await start(runtime, peers: peers) { startedNow.append(runtime.id) }
            } else {
                await runtime.setPeers(peers)
            }
        }
        // A new bot that did not start is not kept: a later reload may add it again.
        let failed = Set(added.map(\.id)).subtracting(startedNow)
        runtimes.withLock { $0.removeAll { failed.contains($0.id) } }
        let running = started.withLock { ids in
            ids = ids.filter { !leaving.contains($0) } + startedNow
            return Set(ids)
        }
        var scheduled: [ScheduledBot] = []
        for runtime in runtimes.withLock({ $0 }) where running.contains(runtime.id) { scheduled.append((runtime, await runtime.bot)) }
        planSchedules(scheduled, resuming: changes.takenOver ? Set(startedNow) : [])
        if !startedNow.isEmpty { pickUpBroadcasts(of: Set(startedNow)) }
        return startedNow
    }

    /// A bot leaving at a reload: its queued and running items finish (bounded by the stop
    /// grace; what remains stays durable in its inbox and outbox), then it disconnects.
    private func leave(_ runtime: BotRuntime) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await runtime.waitUntilQuiet() }
            group.addTask { [grace = options.stopGrace] in try? await Task.sleep(for: grace) }
            await group.next()
            group.cancelAll()
        }
        await runtime.stop()
        logger.log(.info, at: clock.now(), bot: runtime.id, "bot left")
    }
}
