import Foundation
import ParleyBots
import ParleyCore
import Synchronization

/// Each bot's health as `/healthz` reports it, kept up to date by the bots' connection events
/// and read without waiting on any bot: a probe costs one lock.
final class HostHealthBoard: Sendable {
    private struct State {
        var bots: [String] = []
        var connections: [String: ConnectionState] = [:]
        var watches: [String: SyncWatch] = [:]
        var clock: (any ParleyClock)?
        /// On a shared database: the bots this process holds, and whether the database answers.
        var cluster: ClusterHealth?
        /// Bumped by every connection change: a cached probe answer of an older one is stale.
        var version = 0
        var cached: (version: Int, at: Date, health: HostHealth, json: Data)?
    }

    /// How long a probe's answer is reused while no connection changed: a monitor polling
    /// `/healthz` hard costs one lock per probe, and a sync age in it is at most this old.
    static let probeReuse: TimeInterval = 0.25

    private let state = Mutex(State())

    /// The bots to report on (those not connected yet count as such), and their sync loops.
    func expect(bots: [String], syncWatches: [String: SyncWatch], clock: any ParleyClock) {
        state.withLock {
            $0.bots = bots
            $0.watches = syncWatches
            $0.clock = clock
        }
    }

    /// On a shared database, bots another process runs are on standby here (healthy), and a
    /// database that stopped answering makes the host unhealthy.
    func expect(cluster: ClusterHealth) { state.withLock { $0.cluster = cluster } }

    func set(bot: String, _ connection: ConnectionState) {
        state.withLock {
            $0.connections[bot] = connection
            $0.version += 1
        }
    }

    /// Every expected bot's health, by id.
    func report() -> [String: HostHealth.Bot] {
        let (bots, connections, watches, clock, cluster) = state.withLock { ($0.bots, $0.connections, $0.watches, $0.clock, $0.cluster) }
        let now = clock?.now() ?? Date()
        var report: [String: HostHealth.Bot] = [:]
        let held = cluster?.held()
        for bot in bots {
            if let held, !held.contains(bot) {
                report[bot] = HostHealth.Bot(ok: true, status: "standby: another process runs it")
                continue
            }
            let connection = connections[bot] ?? .disconnected
            var health = HostHealth.Bot(ok: connection == .connected, status: connection.rawValue)
            if let watch = watches[bot] {
                let last = watch.lastSync()
                health.lastSyncSecondsAgo = last.map { max(0, now.timeIntervalSince($0)) }
                // Two long-polls without an answer: the server or the path to it is stuck, even
                // if no request has failed yet.
                let limit = 2 * watch.interval.timeInterval
                if health.ok, let ago = health.lastSyncSecondsAgo, ago > limit {
                    health.ok = false
                    health.status = "no sync answer for \(Int(ago)) s"
                }
            }
            report[bot] = health
        }
        return report
    }
}

/// What a shared database's host tells the health board.
struct ClusterHealth: Sendable {
    var held: @Sendable () -> Set<String>
    var reachable: @Sendable () -> Bool
}

/// What `/healthz` answers: ok when every bot is.
public struct HostHealth: Sendable {
    /// One bot's health.
    public struct Bot: Sendable, Equatable {
        /// Connected, and (on Matrix) syncing.
        public var ok: Bool
        /// `connected`, or why not (`reconnecting`, `no sync answer for 95 s`).
        public var status: String
        /// Seconds since its last sync answer (Matrix), nil before the first or elsewhere.
        public var lastSyncSecondsAgo: Double?

        /// `last_sync_seconds_ago` as the JSON answers give it (tenths of a second).
        var lastSyncJSON: JSONValue? { lastSyncSecondsAgo.map { .double(($0 * 10).rounded() / 10) } }
    }

    /// Every bot is ok (and the shared database answers).
    public var ok: Bool
    /// By bot id.
    public var bots: [String: Bot]
    /// On a shared database: whether it answered within the last lease; nil on SQLite.
    public var database: Bool?

    /// `{"status": "ok" | "degraded", "bots": {"id": {"status": …, "last_sync_seconds_ago": …}}}`.
    public var json: Data {
        var bots: [String: JSONValue] = [:]
        for (id, bot) in self.bots {
            var fields: [String: JSONValue] = ["ok": .bool(bot.ok), "status": .string(bot.status)]
            fields["last_sync_seconds_ago"] = bot.lastSyncJSON
            bots[id] = .object(fields)
        }
        var fields: [String: JSONValue] = ["status": .string(ok ? "ok" : "degraded"), "bots": .object(bots)]
        if let database { fields["database"] = .string(database ? "ok" : "unreachable") }
        return JSONValue.object(fields).jsonData()
    }
}

extension HostHealthBoard {
    /// The health now and its JSON, reused for `probeReuse` while no connection changed.
    func probe() -> (health: HostHealth, json: Data) {
        let (version, clock, cached) = state.withLock { ($0.version, $0.clock, $0.cached) }
        let now = clock?.now() ?? Date()
        if let cached, cached.version == version, abs(now.timeIntervalSince(cached.at)) < Self.probeReuse {
            return (cached.health, cached.json)
        }
        let bots = report()
        let database = state.withLock { $0.cluster }?.reachable()
        let health = HostHealth(ok: bots.values.allSatisfy(\.ok) && database != false, bots: bots, database: database)
        let json = health.json
        state.withLock { state in
            // A change that came meanwhile wins: its probe computes afresh.
            if state.version == version { state.cached = (version, now, health, json) }
        }
        return (health, json)
    }
}

extension RunningHost {
    /// The host's health now (`GET /healthz`; the same answer for up to a quarter second
    /// while no bot's connection changes).
    public func health() -> HostHealth { metrics.health.probe().health }

    /// `health()` and its JSON, as `/healthz` answers.
    func healthAnswer() -> (health: HostHealth, json: Data) { metrics.health.probe() }
}
