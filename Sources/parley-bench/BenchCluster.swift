import Foundation
import ParleyBots
import ParleyCore
import ParleyHub
import ParleyTesting
import ParleyStore
import YAMLCoding

/// `parley-bench cluster`: what a shared PostgreSQL costs one process against SQLite, in one
/// run. Needs `PARLEY_TEST_POSTGRES_URL` (`eval "$(scripts/postgres start)"`); says "skipped"
/// without one.
/// - Conversations: 100 users each run 10 two-step flows of the reload tests' desk bot
///   (`/order` → question → number → answer with the number), the bot's conversation state,
///   inbox and outbox durable in the store; every answer checked.
/// - A broadcast to 20,000 users, its job and recipients in the store; every recipient
///   checked to have exactly one message.
/// - On PostgreSQL, the conversations of three desk bots (99 users, 33 a bot) with the bots
///   split over 1, 2 and 3 hosts, each host with its own store connections on the one shared
///   schema, as the processes of a cluster have (the hosts live in this process: an embedded
///   hub cannot be reached from another).
/// - On PostgreSQL, the broadcast to 20,000 sent by 1, 2 and 3 hosts together, each claiming
///   chunks of the one job as the processes of a cluster do.
/// The users live on an embedded hub (in memory, or a SQLite file of its own for the broadcast,
/// to count each recipient's messages): only the store differs between the lines.
/// Failover (several processes, Synapse) is measured by `scripts/cluster-test`.
func benchCluster() async throws {
    guard let url = TestDatabase.postgresURL else {
        benchLine("cluster: skipped (no PostgreSQL: eval \"$(scripts/postgres start)\")")
        return
    }
    var figures: [String: (conversations: Double, recipients: Double)] = [:]
    for kind in [TestDatabase.sqlite, .postgres] {
        let location = kind == .sqlite ? kind.location("cluster") : freshSchema(of: url)
        let conversations = try await ClusterBench.conversations(location: location, bots: 1, hosts: 1, users: 100, each: 10)
        // The median of three jobs: one job takes about a second, and a stall of the shared
        // machine (or the database's autovacuum) in one of them would decide the ratio.
        var rates: [Double] = []
        for _ in 0..<3 { rates.append(try await ClusterBench.broadcast(location: location, count: 20_000)) }
        let recipients = rates.sorted()[1]
        figures[kind.rawValue] = (conversations, recipients)
        benchLine(String(format: "cluster.%@: %.0f conversations/s (100 users × 10 two-step flows, every answer checked), "
                         + "%.0f broadcast recipients/s (20,000, each exactly once; median of 3 jobs: %@), 1 process", kind.rawValue,
                         conversations, recipients, rates.map { String(format: "%.0f", $0) }.joined(separator: ", ")))
    }
    if let lite = figures["sqlite"], let pg = figures["postgres"] {
        benchLine(String(format: "cluster.ratio: PostgreSQL takes %.2f× SQLite's time per conversation and %.2f× per recipient "
                         + "(target: within 2× for one process)", lite.conversations / pg.conversations, lite.recipients / pg.recipients))
    }
    for hosts in 1...3 {
        let location = freshSchema(of: url)
        let rate = try await ClusterBench.conversations(location: location, bots: 3, hosts: hosts, users: 99, each: 10)
        benchLine(String(format: "cluster.postgres.hosts%d: %.0f conversations/s (3 bots over %d host%@ with connections of their own, "
                         + "99 users × 10 two-step flows, every answer checked)", hosts, rate, hosts, hosts == 1 ? "" : "s"))
    }
    for hosts in 1...3 {
        let location = freshSchema(of: url)
        let rate = try await ClusterBench.broadcast(location: location, count: 20_000, hosts: hosts)
        benchLine(String(format: "cluster.postgres.broadcast.hosts%d: %.0f broadcast recipients/s (20,000 sent by %d host%@ claiming "
                         + "chunks of one job, each exactly once, every host sending)", hosts, rate, hosts, hosts == 1 ? "" : "s"))
    }
}

/// A new schema of the test PostgreSQL at `url`, for one figure.
private func freshSchema(of url: String) -> String {
    StoreLocation.postgres(url, schema: "bench_\(UUID().uuidString.prefix(8).lowercased())")
}

enum ClusterBench {
    /// Conversations per second through `bots` desk bots (`desk0`…) whose state and outboxes
    /// live at `location`, bot `i` run by host `i % hosts` (each host its own store and
    /// connections), user `u` talking to bot `u % bots`.
    static func conversations(location: String, bots: Int, hosts: Int, users: Int, each: Int) async throws -> Double {
        let hub = try Hub()
        let definition = try YAMLDecoder(environment: [:]).decode(BotDefinition.self, from: TestFixtures.reloadedDesk, file: "desk.yaml")
        let botHosts = try (0..<hosts).map { _ in BotHost(store: try DatabaseBotStore(path: location)) }
        let names = (0..<bots).map { "desk\($0)" }
        for (index, name) in names.enumerated() {
            try hub.addUser(Profile(id: name, name: "Desk"))
            let transport = try hub.connect(user: name)
            let own = location.hasPrefix("postgres")
                ? StoreLocation.postgres(location, schema: StoreLocation.schemaName("bench_\(name)_\(UUID().uuidString.prefix(6))"))
                : location + ".\(name).db"
            try botHosts[index % hosts].add(try CompiledBot(id: name, definition: definition),
                                            connection: BotConnection(transport: transport, deliveredEventCount: { transport.deliveredEventCount },
                                                                      storage: .outboxOnly(path: own)))
        }
        for host in botHosts { await host.start() }
        let (clients, answers) = try await BotBench.connectUsers(users, to: hub)
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<users {
                let client = clients[index], answer = answers[index], desk = names[index % bots]
                group.addTask {
                    for round in 0..<each {
                        _ = try await client.send(TextContent("/order"), to: .person(desk))
                        try await answer.nextAnswer(from: desk, expecting: "Which order?")
                        _ = try await client.send(TextContent("\(index)-\(round)"), to: .person(desk))
                        try await answer.nextAnswer(from: desk, expecting: "Order \(index)-\(round) noted.")
                    }
                }
            }
            try await group.waitForAll()
        }
        let seconds = (ContinuousClock.now - start).timeInterval
        for host in botHosts { await host.stop() }
        for client in clients { await client.close() }
        return Double(users * each) / seconds
    }

    /// Broadcast recipients per second, the job and its recipients stored at `location`, sent
    /// by `hosts` runs together (each its own store connection and hub connection, claiming
    /// chunks as the processes of a cluster do).
    static func broadcast(location: String, count: Int, hosts: Int = 1) async throws -> Double {
        // A hub file of its own (the same kind in both runs), so every message can be counted.
        let hub = try Hub(path: TestDatabase.sqlite.location("hub"))
        try hub.addUser(Profile(id: "news", name: "News"))
        for index in 0..<count { try hub.addUser(Profile(id: "r\(index)")) }
        let transport = try hub.connect(user: "news")
        let service = BroadcastService(store: try BroadcastStore(path: location))
        var recipients = BroadcastRecipients()
        for index in 0..<count { recipients.append(.person("r\(index)")) }
        let start = ContinuousClock.now
        let job = try service.create(bot: "news", origin: "bench", message: try BroadcastMessage(text: "Hello {{recipient.id}}"),
                                     recipients: recipients).job
        let helpers = try (1..<max(1, hosts)).map { _ in
            (BroadcastService(store: try BroadcastStore(path: location)), try hub.connect(user: "news"))
        }
        // Timed to the job's end: the report of the run that finished it (the last to record).
        // A run left with nothing to claim ends a poll later, which the job does not wait for.
        var finished: ContinuousClock.Instant?
        let reports = try await withThrowingTaskGroup(of: BroadcastReport.self) { group in
            group.addTask { try await service.run(job.id, transport: transport) }
            for (helper, connection) in helpers { group.addTask { try await helper.run(job.id, transport: connection) } }
            var reports: [BroadcastReport] = []
            for try await report in group {
                if report.pending == 0 && finished == nil { finished = ContinuousClock.now }
                reports.append(report)
            }
            return reports
        }
        let seconds = ((finished ?? ContinuousClock.now) - start).timeInterval
        let stored = try service.store.job(job.id)
        guard stored?.sent == count, stored?.failed == 0, reports.allSatisfy({ $0.sentThisRun > 0 }) else {
            throw BenchFailure("cluster broadcast over \(hosts) hosts: \(String(describing: stored)), sent per host \(reports.map(\.sentThisRun))")
        }
        // Each recipient's channel holds exactly its one message.
        for index in 0..<count {
            let history = try hub.messages(in: .person("news"), seenBy: "r\(index)")
            guard history.count == 1 else { throw BenchFailure("cluster broadcast: r\(index) has \(history.count) messages") }
        }
        return Double(count) / seconds
    }
}
