import Foundation
import ParleyBots
import ParleyCore
import ParleyMetrics

/// The host's metrics (`GET /metrics`): counted as the bots work (it is their
/// `BotActivityObserver`), and read from the stores at each scrape for what they already keep
/// (outbox depths, broadcast jobs, tickets, flows). Names follow Prometheus's conventions:
/// `parley_` first, `_total` counters, `_seconds` durations.
public final class HostMetrics: BotActivityObserver {
    /// The registry `/metrics` exposes.
    public let registry = MetricsRegistry()
    let received: MetricFamily<Counter>
    let sentMessages: MetricFamily<Counter>
    let latency: MetricFamily<Histogram>
    let failures: MetricFamily<Counter>
    let rateLimits: MetricFamily<Counter>
    let firstAnswers: MetricFamily<Histogram>
    let resolutions: MetricFamily<Histogram>
    /// Config reloads by result (`ok`, `invalid`, `failed`).
    public let reloads: MetricFamily<Counter>
    /// Each bot's connection state, kept for `/healthz` too.
    let health = HostHealthBoard()

    /// Answer latencies from 5 ms to 30 s: a bot answers in tens of milliseconds, a slow
    /// homeserver or a hand-off queue in seconds.
    static let latencyBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

    /// Hand-off times from 10 s to a day: an agent answers in minutes, a ticket is resolved in
    /// minutes to hours.
    static let handoffBuckets: [Double] = [10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14400, 28800, 86400]

    /// The families counted as things happen; `attach` adds those read from a running host.
    public init() {
        received = registry.counter("parley_messages_received_total", help: "Messages a bot took to handle.", labels: ["bot"])
        sentMessages = registry.counter("parley_messages_sent_total", help: "Messages of a bot the server accepted.", labels: ["bot"])
        latency = registry.histogram("parley_answer_latency_seconds",
                                     help: "From a received message's server time to the server accepting the bot's first answer.",
                                     labels: ["bot"], buckets: Self.latencyBuckets)
        failures = registry.counter("parley_send_failures_total", help: "Sends that failed for good, by error code.",
                                    labels: ["bot", "code"])
        rateLimits = registry.counter("parley_rate_limited_total", help: "Sends the server refused for their rate (then retried).",
                                      labels: ["bot"])
        firstAnswers = registry.histogram("parley_handoff_first_answer_seconds",
                                          help: "From a ticket's opening to its first agent answer, by queue.",
                                          labels: ["queue"], buckets: Self.handoffBuckets)
        resolutions = registry.histogram("parley_handoff_resolution_seconds", help: "From a ticket's opening to its resolution, by queue.",
                                         labels: ["queue"], buckets: Self.handoffBuckets)
        reloads = registry.counter("parley_config_reloads_total", help: "Config reloads, by result.", labels: ["result"])
        registry.gauge("parley_build_info", help: "The running build (always 1).", labels: ["version", "swift"])
            .labels(ParleyVersion.current, ParleyVersion.swift).set(1)
    }

    /// The bots `/healthz` reports on: those `running` runs now (again after a reload).
    func expect(_ running: RunningHost) {
        health.expect(bots: running.bots.map(\.id), syncWatches: running.syncWatches, clock: running.host.clock)
        if let keeper = running.keeper {
            health.expect(cluster: ClusterHealth(held: { Set(keeper.holdings.keys) }, reachable: { keeper.databaseReachable }))
        }
    }

    /// Adds the families read from `running` at each scrape.
    func attach(_ running: RunningHost) {
        let host = running.host
        expect(running)
        // Read from `running` at each scrape: a reload changes the bots.
        registry.collected("parley_outbox_depth", help: "Sends waiting in a bot's outbox for the server.", kind: .gauge,
                           labels: ["bot"]) { [weak running] in
            var samples: [MetricSample] = []
            for bot in running?.bots.map(\.id) ?? [] {
                if let depth = await host.queuedSends(of: bot) { samples.append(MetricSample([bot], Double(depth))) }
            }
            return samples
        }
        registry.collected("parley_sync_age_seconds", help: "Seconds since a bot's last sync answer (Matrix).", kind: .gauge,
                           labels: ["bot"]) { [weak running, clock = host.clock] in
            (running?.syncWatches ?? [:]).compactMap { bot, watch in
                watch.lastSync().map { MetricSample([bot], max(0, clock.now().timeIntervalSince($0))) }
            }
        }
        let store = host.store, clock = host.clock
        // One store summary per scrape feeds the three families.
        registry.collected([
            CollectedFamily("parley_handoff_tickets", help: "Hand-off tickets by queue and status.", kind: .gauge, labels: ["queue", "status"]),
            CollectedFamily("parley_handoff_oldest_open_seconds", help: "Age of the oldest ticket no agent has taken, by queue.",
                            kind: .gauge, labels: ["queue"]),
            CollectedFamily("parley_active_flows", help: "Conversations waiting in a flow, by bot.", kind: .gauge, labels: ["bot"]),
        ]) {
            let summary = (try? store.summary()) ?? BotStoreSummary()
            let now = clock.now()
            return [
                summary.tickets.map { MetricSample([$0.key.queue, $0.key.status.rawValue], Double($0.value)) },
                summary.oldestOpen.map { MetricSample([$0.key], max(0, now.timeIntervalSince($0.value))) },
                summary.activeFlows.map { MetricSample([$0.key], Double($0.value)) },
            ]
        }
        if let broadcasts = host.options.broadcasts?.store {
            registry.collected("parley_broadcast_recipients", help: "Recipients of broadcast jobs by job and state.", kind: .gauge,
                               labels: ["bot", "job", "state"]) {
                // Ended jobs (finished, cancelled) stay an hour (their last figures), then leave the exposition:
                // a gauge per job ever sent would grow without bound.
                let recent = clock.now().addingTimeInterval(-3600)
                return ((try? broadcasts.jobs()) ?? []).filter { !$0.state.isEnded || ($0.finished ?? .distantPast) > recent }.flatMap { job in
                    // A job to an audience also counts the members who left before their turn.
                    ([("sent", job.sent), ("failed", job.failed), ("pending", job.pending)]
                        + (job.audience == nil ? [] : [("opted_out", job.optedOut)])).map {
                        MetricSample([job.bot, job.id, $0.0], Double($0.1))
                    }
                }
            }
        }
    }

    // MARK: - BotActivityObserver

    public func connection(bot: String, _ state: ConnectionState) { health.set(bot: bot, state) }
    public func received(bot: String) { received.labels(bot).increment() }
    public func sent(bot: String) { sentMessages.labels(bot).increment() }
    public func answered(bot: String, latency: Duration) {
        self.latency.labels(bot).observe(latency.timeInterval)
    }
    public func sendFailed(bot: String, _ error: ParleyError) { failures.labels(bot, error.code.rawValue).increment() }
    public func rateLimited(bot: String) { rateLimits.labels(bot).increment() }
    public func ticketAnswered(queue: String, after: Duration) { firstAnswers.labels(queue).observe(after.timeInterval) }
    public func ticketResolved(queue: String, after: Duration) { resolutions.labels(queue).observe(after.timeInterval) }
}
