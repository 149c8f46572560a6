import Foundation
import ParleyBots
import ParleyCore
import ParleyStore

/// Several `parley run` processes on one PostgreSQL database (`storage.url`): each bot is run
/// by the process holding its lease; the others stand by and take it over within one lease
/// when its holder dies, is cut off from the database, or shuts down.
extension RunningHost {
    /// The lease keeper of a shared database, nil on SQLite.
    /// - Throws: `HostError` when the database cannot be reached.
    static func keeper(storage: HostStorage, config: HostConfig?, bots: [String], logger: BotLogger,
                       clock: any ParleyClock) throws(HostError) -> LeaseKeeper? {
        guard storage.isPostgres, let fences = storage.fences else { return nil }
        let store: LeaseStore
        do {
            store = try LeaseStore(location: storage.path)
        } catch {
            throw HostError("cannot open the storage at \(storage.shownPath): \(error)")
        }
        return LeaseKeeper(store: store, processID: LeaseKeeper.newProcessID(), bots: bots, lease: config?.lease ?? StorageConfig.defaultLease,
                           fences: fences) { level, message, fields in
            logger.log(level == "warn" ? .warn : .info, at: clock.now(), bot: nil, "cluster: \(message)", fields)
        }
    }

    /// Starts acting on changes of hands: taking over free bots, stopping lost ones (the leases
    /// are renewed since they were taken, in `make`).
    func startKeepingLeases() {
        guard let keeper else { return }
        keeper.act(LeaseKeeper.Actions(taken: { [weak self] taken in
            guard let self else { return [] }
            return await self.takeOver(Set(taken.keys))
        }, lost: { [weak self] bots in
            guard let self else { return }
            _ = await self.host.apply(BotChanges(abandoned: bots))
        }, held: { [weak self] bots in
            guard let self else { return }
            host.pickUpBroadcasts(of: bots)
            if let helpers { host.helpBroadcasts(notHeld: bots, route: helpers.route(for:)) }
        }))
    }

    /// Connects and starts bots whose leases this process just took; the ids that started.
    private func takeOver(_ ids: Set<String>) async -> Set<String> {
        let all = transportRun.bots
        let bots = all.filter { ids.contains($0.id) }
        do {
            let connections = try await connect(bots.map(\.id), bots: all, provider: provider)
            var changes = BotChanges(added: bots.compactMap { bot in connections[bot.id].map { (bot, $0) } })
            changes.takenOver = true
            let started = await host.apply(changes)
            metrics.expect(self)  // the new bots' sync loops, for /healthz
            return Set(started)
        } catch {
            host.logger.log(.error, at: host.clock.now(), bot: nil, "cluster: bots not taken over",
                            ["bots": ids.sorted().joined(separator: ","), "error": "\(error)"])
            return []
        }
    }

    /// The bots this process runs for the cluster, with their lease generations (empty on SQLite).
    public var heldLeases: [String: Int64] { keeper?.holdings ?? [:] }

    /// False while a shared database has not answered for a whole lease (`/healthz` says 503).
    public var databaseReachable: Bool { keeper?.databaseReachable ?? true }
}
