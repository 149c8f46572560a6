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

    func set(bot: String, _ connection: ConnectionState) {
        state.withLock {
            $0.connections[bot] = connection
            $0.version += 1
        }
    }

    /// Every expected bot's health, by id.
    func report() -> [String: HostHealth.Bot] {
        let (bots, connections, watches, clock) = state.withLock { ($0.bots, $0.connections, $0.watches, $0.clock) }
        let now = clock?.now() ?? Date()
        var report: [String: HostHealth.Bot] = [:]
        for bot in bots {
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

    /// Every bot is ok.
    public var ok: Bool
    /// By bot id.
    public var bots: [String: Bot]

    /// `{"status": "ok" | "degraded", "bots": {"id": {"status": …, "last_sync_seconds_ago": …}}}`.
    public var json: Data {
        var bots: [String: JSONValue] = [:]
        for (id, bot) in self.bots {
            var fields: [String: JSONValue] = ["ok": .bool(bot.ok), "status": .string(bot.status)]
            fields["last_sync_seconds_ago"] = bot.lastSyncJSON
            bots[id] = .object(fields)
        }
        return JSONValue.object(["status": .string(ok ? "ok" : "degraded"), "bots": .object(bots)]).jsonData()
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
        let health = HostHealth(ok: bots.values.allSatisfy(\.ok), bots: bots)
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
