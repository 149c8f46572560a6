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
    }

    /// One bot's line of the report.
    struct BotHealth: Equatable {
        var ok: Bool
        /// `connected`, or why not (`reconnecting`, `no sync for 95 s`).
        var status: String
        var connection: ConnectionState
        var lastSyncSecondsAgo: Double?
    }

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
        state.withLock { $0.connections[bot] = connection }
    }

    /// Every expected bot's health, by id.
    func report() -> [String: BotHealth] {
        let (bots, connections, watches, clock) = state.withLock { ($0.bots, $0.connections, $0.watches, $0.clock) }
        let now = clock?.now() ?? Date()
        var report: [String: BotHealth] = [:]
        for bot in bots {
            let connection = connections[bot] ?? .disconnected
            var health = BotHealth(ok: connection == .connected, status: connection.rawValue, connection: connection)
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
            if let ago = bot.lastSyncSecondsAgo { fields["last_sync_seconds_ago"] = .double((ago * 10).rounded() / 10) }
            bots[id] = .object(fields)
        }
        return JSONValue.object(["status": .string(ok ? "ok" : "degraded"), "bots": .object(bots)]).jsonData()
    }
}

extension RunningHost {
    /// The host's health now (`GET /healthz`).
    public func health() -> HostHealth {
        let report = metrics.health.report()
        let bots = report.mapValues { HostHealth.Bot(ok: $0.ok, status: $0.status, lastSyncSecondsAgo: $0.lastSyncSecondsAgo) }
        return HostHealth(ok: bots.values.allSatisfy(\.ok), bots: bots)
    }
}
