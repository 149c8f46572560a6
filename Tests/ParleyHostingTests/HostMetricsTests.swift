import Foundation
import ParleyBots
import ParleyCore
import ParleyHosting
import ParleyHub
import ParleyTesting
import Testing

/// `/metrics` and `/healthz` of a host on the embedded hub: counters move as messages flow,
/// the stores' counts are read at each scrape, promtool accepts the text.
@Suite struct HostMetricsTests {
    /// A host of one bot (`desk`: answers `/ping`, hands `/human` off to `agents`, asks in a
    /// flow on `/order`) with a SQLite store in a fresh folder; `alice` can talk to it, and
    /// `users` exist besides the bot.
    /// `storagePath` replaces the config's (`":memory:"`: nothing kept, as `parley chat`).
    static func host(users: [String] = ["alice", "bob"], storagePath: String? = nil) async throws -> (RunningHost, ChatClient) {
        let (running, alice, _) = try await hostInFolder(users: users, storagePath: storagePath)
        return (running, alice)
    }

    /// `host()` and the folder of its files (a reload reads them again).
    static func hostInFolder(users: [String] = ["alice", "bob"], storagePath: String? = nil) async throws -> (RunningHost, ChatClient, String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-metrics-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder + "/bots", withIntermediateDirectories: true)
        try "storage: { path: state/parley.db }\n".write(toFile: folder + "/config.yaml", atomically: true, encoding: .utf8)
        try """
            name: Desk
            commands:
              ping: { reply: pong }
              human: { handoff: { queue: agents, note: help } }
              order: { goto: order.number }
              news: { broadcast: { to: ["user:alice", "user:bob"], send: { text: "News!" } } }
            flows:
              order:
                number:
                  reply: Which order?
                  ask: { save: number }
            audiences:
              news: { description: Desk news, subscribe: [join], unsubscribe: [stop] }
            """.write(toFile: folder + "/bots/desk.yaml", atomically: true, encoding: .utf8)
        let resolve: @Sendable (String) -> String = { folder + "/" + $0 }
        let loaded = HostLoader.load(configFile: "config.yaml", resolve: resolve, environment: [:])
        try #require(loaded.errors.isEmpty, "\(loaded.errors)")
        var options = RunningHost.Options(resolve: resolve, logger: .silent, storagePath: storagePath, extraUsers: users)
        options.reloadSource = { HostLoader.load(configFile: "config.yaml", resolve: resolve, environment: [:]) }
        let running = try await RunningHost.make(loaded, options: options)
        #expect(await running.start() == ["desk"])
        let hub = try #require(running.hub)
        let alice = try ChatClient(transport: hub.connect(user: "alice"), configuration: ChatClientConfiguration(registry: running.registry))
        try await alice.connect()
        return (running, alice, folder)
    }

    static func say(_ text: String, _ alice: ChatClient, _ running: RunningHost) async throws {
        _ = try await alice.send(TextContent(text), to: .person("desk"))
        try await withTimeout { await running.host.waitUntilIdle() }
    }

    /// The value of the sample line that starts with `prefix` (`name{labels}`), if any.
    static func value(_ text: String, _ prefix: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(prefix + " ") }.flatMap { Double($0.dropFirst(prefix.count + 1)) }
    }

    @Test func countersMoveAsMessagesFlowAndTheStoresAreCountedAtEachScrape() async throws {
        let (running, alice) = try await Self.host()
        let before = await running.metrics.registry.exposition()
        #expect(Self.value(before, #"parley_messages_received_total{bot="desk"}"#) == nil)
        for _ in 0..<3 { try await Self.say("/ping", alice, running) }
        try await Self.say("/human", alice, running)
        let bob = try ChatClient(transport: try #require(running.hub).connect(user: "bob"),
                                 configuration: ChatClientConfiguration(registry: running.registry))
        try await bob.connect()
        try await Self.say("/order", bob, running)
        let text = await running.metrics.registry.exposition()
        #expect(Self.value(text, #"parley_messages_received_total{bot="desk"}"#) == 5)
        // The hand-off's ticket card goes to the queue, not to alice: no answer of hers.
        #expect(Self.value(text, #"parley_answer_latency_seconds_count{bot="desk"}"#) == 4)
        #expect(Self.value(text, #"parley_active_flows{bot="desk"}"#) == 1)
        #expect(Self.value(text, #"parley_outbox_depth{bot="desk"}"#) == 0)
        #expect(Self.value(text, #"parley_messages_sent_total{bot="desk"}"#).map { $0 >= 5 } == true)
        #expect(text.contains(#"parley_build_info{version="\#(ParleyVersion.current)",swift=""#))

        #expect(Self.value(text, #"parley_handoff_tickets{queue="agents",status="open"}"#) == 1)
        #expect(Self.value(text, #"parley_handoff_oldest_open_seconds{queue="agents"}"#).map { $0 >= 0 && $0 < 60 } == true)
        #expect(try await Promtool.check(text) == "")
        await alice.close()
        await bob.close()
        await running.shutdown()
    }

    @Test func handOffTimesAreObservedAtTheFirstAnswerAndTheResolution() async throws {
        let (running, alice) = try await Self.host()
        try await Self.say("/human", alice, running)
        let bob = try ChatClient(transport: try #require(running.hub).connect(user: "bob"),
                                 configuration: ChatClientConfiguration(registry: running.registry))
        try await bob.connect()
        for line in ["/reply 1 Hello from the desk", "/reply 1 Still here", "/resolve 1"] {
            _ = try await bob.send(TextContent(line), to: .group("agents"))
            try await withTimeout { await running.host.waitUntilIdle() }
        }
        let text = await running.metrics.registry.exposition()
        // Two replies, one first answer.
        #expect(Self.value(text, #"parley_handoff_first_answer_seconds_count{queue="agents"}"#) == 1)
        #expect(Self.value(text, #"parley_handoff_resolution_seconds_count{queue="agents"}"#) == 1)
        #expect(Self.value(text, #"parley_handoff_resolution_seconds_bucket{queue="agents",le="10"}"#) == 1)
        #expect(try await Promtool.check(text) == "")
        await bob.close()
        await alice.close()
        await running.shutdown()
    }

    @Test func refusalsForTheRateAndFailuresForGoodAreCountedByBotAndCode() async throws {
        let (running, alice) = try await Self.host()
        let hub = try #require(running.hub)
        hub.failNextSends(2, with: ParleyError(.rateLimited, "slow down", retryAfter: .milliseconds(5)), from: "desk")
        try await Self.say("/ping", alice, running)
        hub.failSends(to: .person("alice"), with: ParleyError(.permissionDenied, "blocked"))
        try await Self.say("/ping", alice, running)
        let text = await running.metrics.registry.exposition()
        #expect(Self.value(text, #"parley_rate_limited_total{bot="desk"}"#) == 2)
        #expect(Self.value(text, #"parley_messages_sent_total{bot="desk"}"#) == 1)
        #expect(Self.value(text, #"parley_send_failures_total{bot="desk",code="permissionDenied"}"#) == 1)
        #expect(Self.value(text, #"parley_answer_latency_seconds_count{bot="desk"}"#) == 1)
        await alice.close()
        await running.shutdown()
    }

    @Test func aBotIsHealthyOnceConnectedAndDegradedWhenItsConnectionDrops() async throws {
        let (running, alice) = try await Self.host()
        let healthy = running.health()
        #expect(healthy.ok)
        #expect(healthy.bots["desk"]?.status == "connected")
        running.metrics.connection(bot: "desk", .reconnecting)
        let degraded = running.health()
        #expect(!degraded.ok)
        #expect(degraded.bots["desk"]?.status == "reconnecting")
        await alice.close()
        await running.shutdown()
    }
}
