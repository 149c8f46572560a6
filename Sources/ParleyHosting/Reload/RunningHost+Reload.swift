import Foundation
import ParleyBots
import ParleyCore

/// Hot reload (SIGHUP, `POST /api/v1/reload`): the config is loaded and checked exactly as
/// `parley check` does; anything wrong changes nothing. Otherwise changed bot files are
/// swapped in while the bots run, new ones connect and removed ones leave; a change of
/// `config.yaml` itself (transport, storage, the listener…) is reported as needing a restart,
/// never half applied.
extension RunningHost {
    /// Loads the config again and applies it.
    public func reload() async -> ReloadReport {
        guard let source else {
            return ReloadReport(result: .failed, errors: ["this host was started without a way to load its config again"])
        }
        return await reloads.run { await self.apply(source()) }
    }

    /// Applies `loaded`, a fresh load of the config (tests hand it in directly).
    public func reload(_ loaded: LoadedHost) async -> ReloadReport {
        await reloads.run { await self.apply(loaded) }
    }

    private func apply(_ loaded: LoadedHost) async -> ReloadReport {
        let started = ContinuousClock.now
        var report = await changes(to: loaded)
        report.duration = ContinuousClock.now - started
        metrics.reloads.labels(report.result.rawValue).increment()
        let logger = host.logger, now = host.clock.now()
        for error in report.errors { logger.log(.error, at: now, bot: nil, "reload: \(error)", [:]) }
        var fields = ["result": report.result.rawValue, "added": report.added.joined(separator: ","),
                      "changed": report.changed.joined(separator: ","), "removed": report.removed.joined(separator: ","),
                      "ms": String(Int((report.duration.timeInterval * 1000).rounded()))]
        if !report.restartNeeded.isEmpty { fields["restart_needed"] = report.restartNeeded.joined(separator: "; ") }
        logger.log(report.result == .ok ? .info : .error, at: now, bot: nil,
                   report.result == .invalid ? "reload refused: nothing changed" : "reloaded", fields)
        return report
    }

    private func changes(to loaded: LoadedHost) async -> ReloadReport {
        guard loaded.errors.isEmpty, let provider = loaded.transport else {
            return ReloadReport(result: .invalid, errors: loaded.errors.map(\.description))
        }
        let before = self.loaded.withLock { $0 }
        var report = ReloadReport(result: .ok)
        let sections = LoadedState.sections(of: loaded)
        for key in Set(sections.keys).union(before.config.keys).sorted() where sections[key] != before.config[key] {
            report.restartNeeded.append("\(loaded.catalog.configFile): '\(key)' changed; it applies at the next restart")
        }
        // Compile what is new or changed; one that does not compile refuses the whole reload.
        let running = Dictionary(before.bots.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var next: [CompiledBot] = []
        var fresh: [CompiledBot] = []
        var errors: [String] = []
        for bot in loaded.catalog.bots {
            if let old = running[bot.id], before.sources[bot.id] == bot.source.text {
                next.append(old)
                continue
            }
            do {
                let compiled = try CompiledBot(id: bot.id, definition: bot.definition, file: bot.file)
                next.append(compiled)
                fresh.append(compiled)
            } catch {
                errors.append("\(bot.file): error: \(error.message)")
            }
        }
        guard errors.isEmpty else { return ReloadReport(result: .invalid, errors: errors) }
        let ids = Set(loaded.catalog.bots.map(\.id))
        report.removed = before.bots.map(\.id).filter { !ids.contains($0) }
        var changed = fresh.filter { running[$0.id] != nil }
        var added = fresh.filter { running[$0.id] == nil }
        for bot in changed where bot.profile(as: bot.id) != running[bot.id]?.profile(as: bot.id) {
            report.restartNeeded.append("bot '\(bot.id)': its name and avatar apply at the next restart")
        }
        if sections["transport"] != before.config["transport"], !added.isEmpty {
            // New bots would connect with the new transport section while the others keep the
            // old one: they wait for the restart that section needs.
            report.restartNeeded += added.map { "bot '\($0.id)' is new and 'transport' changed; it starts at the next restart" }
            next.removeAll { bot in added.contains { $0.id == bot.id } }
            added = []
        }
        if storage.isPostgres, !added.isEmpty {
            // On a shared database a bot runs where its lease is: the processes agree on the
            // bots at their start, so a new one joins at the next restart of them all.
            report.restartNeeded += added.map { "bot '\($0.id)' is new and the storage is shared; it starts at the next restart" }
            next.removeAll { bot in added.contains { $0.id == bot.id } }
            added = []
        }
        var connections: [String: BotConnection] = [:]
        if !added.isEmpty || LoadedState.queues(of: next) != before.queues {
            do {
                connections = try await connect(added.map(\.id), bots: next, provider: provider)
            } catch {
                report.result = .failed
                report.errors.append("new bots not connected (\(added.map(\.id).joined(separator: ", "))): \(error)")
                // A changed bot whose new queue has no group yet would fail at its first
                // hand-off: it keeps running as it was.
                let reverted = Set(changed.filter { !Set($0.queues).isSubset(of: before.queues) }.map(\.id))
                changed.removeAll { reverted.contains($0.id) }
                next = next.compactMap { bot in reverted.contains(bot.id) ? running[bot.id] : bot }
                next.removeAll { bot in added.contains { $0.id == bot.id } }
                added = []
            }
        }
        let startedNow = Set(await host.apply(BotChanges(changed: changed, added: added.compactMap { bot in
            connections[bot.id].map { (bot, $0) }
        }, removed: report.removed)))
        next.removeAll { bot in running[bot.id] == nil && !startedNow.contains(bot.id) }
        if startedNow.count < added.count, report.result == .ok {
            report.result = .failed
            report.errors.append("new bots not started: " + added.map(\.id).filter { !startedNow.contains($0) }.joined(separator: ", "))
        }
        report.added = added.map(\.id).filter(startedNow.contains)
        report.changed = changed.map(\.id)
        // What runs now is what the next reload compares with: a bot left out (not started,
        // or waiting for a restart) is new to it again.
        let applied = Set(report.added + report.changed)
        let texts = LoadedState.sources(of: loaded)
        self.loaded.withLock { state in
            var sources: [String: String] = [:]
            for bot in next { sources[bot.id] = applied.contains(bot.id) ? texts[bot.id] : state.sources[bot.id] }
            state.sources = sources
            state.run(next)
        }
        metrics.expect(self)
        return report
    }

    /// Connects the bots `ids` (and brings the queues' groups up to date for `bots`, every bot
    /// the host will run) on the transport the host started with.
    func connect(_ ids: [String], bots: [CompiledBot], provider: any TransportProvider) async throws -> [String: BotConnection] {
        guard let first = sessions.all.first, let connectMore = first.connectMore else {
            if ids.isEmpty { return [:] }
            throw HostError("the \(kind) transport cannot add bots while it runs; restart to start them")
        }
        var run = transportRun
        run.bots = bots
        let session = try await connectMore(provider, run, Set(ids))
        sessions.add(session)
        return session.connections
    }
}
