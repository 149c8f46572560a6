import Foundation
import Synchronization
import ParleyBots
import ParleyCore
import ParleyHosting
import ParleyHub
import ParleyTesting
import Testing

/// Hot reload on the embedded hub: a folder of bot files, a running host, files rewritten
/// and `reload()` called as SIGHUP and `POST /api/v1/reload` do.
@Suite struct HotReloadTests {
    static let desk = TestFixtures.reloadedDesk

    /// A host over a fresh folder with `bots` (file name → text), alice connected to it.
    struct Fixture {
        let folder: String
        let running: RunningHost
        let alice: ChatClient
        let aliceTransport: HubTransport
        let answers: ReceivedTexts

        static func make(bots: [String: String] = ["desk": HotReloadTests.desk], config: String = "storage: { path: state/parley.db }\n",
                         logger: BotLogger = .silent, clock: any ParleyClock = SystemClock()) async throws -> Fixture {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-reload-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: folder + "/bots", withIntermediateDirectories: true)
            try config.write(toFile: folder + "/config.yaml", atomically: true, encoding: .utf8)
            for (name, text) in bots { try text.write(toFile: folder + "/bots/\(name).yaml", atomically: true, encoding: .utf8) }
            let resolve: @Sendable (String) -> String = { folder + "/" + $0 }
            let loaded = HostLoader.load(configFile: "config.yaml", resolve: resolve, environment: [:])
            try #require(loaded.errors.isEmpty, "\(loaded.errors)")
            var options = RunningHost.Options(resolve: resolve, logger: logger, clock: clock, extraUsers: ["alice"])
            options.reloadSource = { HostLoader.load(configFile: "config.yaml", resolve: resolve, environment: [:]) }
            let running = try await RunningHost.make(loaded, options: options)
            _ = await running.start()
            let hub = try #require(running.hub)
            let transport = try hub.connect(user: "alice")
            let alice = try ChatClient(transport: transport, configuration: ChatClientConfiguration(registry: running.registry))
            let answers = ReceivedTexts(of: "alice")
            await alice.setEventHandler { batch in answers.take(batch) }
            try await alice.connect()
            return Fixture(folder: folder, running: running, alice: alice, aliceTransport: transport, answers: answers)
        }

        func write(_ name: String, _ text: String) throws {
            try text.write(toFile: folder + "/bots/\(name).yaml", atomically: true, encoding: .utf8)
        }

        func remove(_ name: String) throws { try FileManager.default.removeItem(atPath: folder + "/bots/\(name).yaml") }

        /// Sends `text` to `bot` and returns the texts it answered with.
        func ask(_ text: String, bot: String = "desk") async throws -> [String] {
            let before = answers.count
            _ = try await alice.send(TextContent(text), to: .person(bot))
            return try await settle(since: before)
        }

        /// What alice received since `before`, once the host is idle.
        func settle(since before: Int) async throws -> [String] {
            try await withTimeout { await running.host.waitUntilIdle() }
            // Everything the hub handed alice so far has reached her log.
            try await withTimeout { await alice.waitUntilProcessed(aliceTransport.deliveredEventCount) }
            return answers.texts(from: before)
        }

        func close() async {
            await alice.close()
            await running.shutdown()
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    @Test func aBrokenBotFileLeavesTheHostAsItWasAndTheErrorHasItsPosition() async throws {
        let fixture = try await Fixture.make()
        try fixture.write("desk", Self.desk.replacingOccurrences(of: "  ping: { reply: pong }", with: "  ping: { replly: pong }"))
        let report = await fixture.running.reload()
        #expect(report.result == .invalid)
        #expect(!report.errors.isEmpty && report.errors.allSatisfy { $0.hasPrefix("bots/desk.yaml:3:") }, "\(report.errors)")
        #expect(report.errors.contains { $0.hasPrefix("bots/desk.yaml:3:11: error: unknown key 'replly'") }, "\(report.errors)")
        #expect(report.changed.isEmpty && report.added.isEmpty && report.removed.isEmpty)
        #expect(try await fixture.ask("/ping") == ["pong"])
        let metrics = await fixture.running.metrics.registry.exposition()
        #expect(metrics.contains(#"parley_config_reloads_total{result="invalid"} 1"#), "\(metrics)")
        // Fixed, the next reload applies the file.
        try fixture.write("desk", Self.desk.replacingOccurrences(of: "reply: pong", with: "reply: pong again"))
        #expect(await fixture.running.reload().result == .ok)
        #expect(try await fixture.ask("/ping") == ["pong again"])
        await fixture.close()
    }

    @Test func anAddedCommandAnswersWithoutARestartAndOnlyChangedBotsAreSwapped() async throws {
        let fixture = try await Fixture.make(bots: ["desk": Self.desk, "other": "commands:\n  hi: { reply: hello }\n"])
        #expect(try await fixture.ask("/hello") == ["Sorry?"])
        try fixture.write("desk", Self.desk.replacingOccurrences(of: "  ping: { reply: pong }", with: "  ping: { reply: pong }\n  hello: { reply: \"Hello!\" }"))
        let report = await fixture.running.reload()
        #expect(report.result == .ok)
        #expect(report.changed == ["desk"])
        #expect(report.added.isEmpty && report.removed.isEmpty && report.restartNeeded.isEmpty)
        #expect(try await fixture.ask("/hello") == ["Hello!"])
        #expect(try await fixture.ask("/ping") == ["pong"])
        #expect(try await fixture.ask("/hi", bot: "other") == ["hello"])
        // Nothing changed: nothing swapped.
        let again = await fixture.running.reload()
        #expect(again.result == .ok && again.changed.isEmpty)
        await fixture.close()
    }

    @Test func aConversationMidAskKeepsItsPlaceAndOneWhoseStepIsGoneEndsItsFlow() async throws {
        let lines = LogLines()
        let fixture = try await Fixture.make(logger: BotLogger(level: .info) { lines.append($0) })
        #expect(try await fixture.ask("/order") == ["Which order?"])
        try fixture.write("desk", Self.desk.replacingOccurrences(of: "noted.", with: "noted, thanks."))
        #expect(await fixture.running.reload().changed == ["desk"])
        #expect(try await fixture.ask("42") == ["Order 42 noted, thanks."])
        // Waiting again; then the step goes away (renamed): the flow ends and the text is a command's.
        #expect(try await fixture.ask("/order") == ["Which order?"])
        try fixture.write("desk", Self.desk.replacingOccurrences(of: "order.number", with: "order.which")
            .replacingOccurrences(of: "    number:", with: "    which:"))
        #expect(await fixture.running.reload().changed == ["desk"])
        #expect(try await fixture.ask("/ping") == ["pong"])
        #expect(lines.all.contains { $0.contains("flow ended: its step is gone") && $0.contains("order.number") }, "\(lines.all)")
        await fixture.close()
    }

    @Test func addedBotsConnectAndRemovedBotsLeave() async throws {
        let fixture = try await Fixture.make()
        try fixture.write("extra", "commands:\n  hi: { reply: hello from extra }\n")
        let added = await fixture.running.reload()
        #expect(added.result == .ok)
        #expect(added.added == ["extra"])
        #expect(fixture.running.host.runningBots.sorted() == ["desk", "extra"])
        #expect(fixture.running.bots.map(\.id).sorted() == ["desk", "extra"])
        #expect(try await fixture.ask("/hi", bot: "extra") == ["hello from extra"])
        try fixture.remove("extra")
        let removed = await fixture.running.reload()
        #expect(removed.removed == ["extra"])
        #expect(fixture.running.host.runningBots == ["desk"])
        #expect(fixture.running.bots.map(\.id) == ["desk"])
        #expect(try await fixture.ask("/hi", bot: "extra") == [])
        #expect(try await fixture.ask("/ping") == ["pong"])
        // Back again: the same account reconnects, and what was sent to it while it was away
        // waited on the server: answered now, before the new message (nothing is lost).
        try fixture.write("extra", "commands:\n  hi: { reply: back }\n")
        #expect(await fixture.running.reload().added == ["extra"])
        #expect(try await fixture.ask("/hi", bot: "extra") == ["back", "back"])
        await fixture.close()
    }

    @Test func aChangeOfTheConfigFileIsReportedAsNeedingARestart() async throws {
        let fixture = try await Fixture.make()
        try "storage: { path: state/parley.db, retention: 7d }\nhttp: { listen: 127.0.0.1:0 }\n"
            .write(toFile: fixture.folder + "/config.yaml", atomically: true, encoding: .utf8)
        try fixture.write("desk", Self.desk.replacingOccurrences(of: "reply: pong", with: "reply: pong 2"))
        let report = await fixture.running.reload()
        #expect(report.result == .ok)
        #expect(report.restartNeeded == ["config.yaml: 'http' changed; it applies at the next restart",
                                         "config.yaml: 'storage' changed; it applies at the next restart"])
        // The bot files are applied all the same.
        #expect(try await fixture.ask("/ping") == ["pong 2"])
        await fixture.close()
    }

    @Test func schedulesArePlannedAgainAndAnUnchangedOneNeverFiresTwice() async throws {
        let clock = ManualClock()  // 2026-01-01 00:00 UTC
        let news = """
            schedules:
              - name: first
                cron: "0 1 * * *"
                broadcast: { to: ["user:alice"], send: { text: "first" } }
            """
        let fixture = try await Fixture.make(bots: ["desk": Self.desk, "news": news], clock: clock)
        let start = clock.now()
        func at(_ minutes: Int) async throws -> [String] {
            let before = fixture.answers.count
            await clock.advance(to: start.addingTimeInterval(Double(minutes) * 60))
            return try await fixture.settle(since: before)
        }
        try fixture.write("news", news.replacingOccurrences(of: "0 1 * * *", with: "30 0 * * *") + """

              - name: second
                cron: "0 2 * * *"
                broadcast: { to: ["user:alice"], send: { text: "second" } }
            """)
        #expect(await fixture.running.reload().changed == ["news"])
        #expect(try await at(30) == ["first"])
        #expect(try await at(60) == [])
        #expect(try await at(120) == ["second"])
        // A reload that leaves the schedules as they are plans them again from their last runs:
        // the run of two o'clock is not fired a second time.
        try fixture.write("desk", Self.desk.replacingOccurrences(of: "reply: pong", with: "reply: pong 2"))
        #expect(await fixture.running.reload().changed == ["desk"])
        #expect(try await at(150) == [])
        // A timing changed to one whose run would have been due since the last: not fired as
        // "missed", the new timing starts from the reload.
        try fixture.write("news", news.replacingOccurrences(of: "0 1 * * *", with: "30 0 * * *") + """

              - name: second
                cron: "15 2 * * *"
                broadcast: { to: ["user:alice"], send: { text: "second" } }
            """)
        let before = fixture.answers.count
        #expect(await fixture.running.reload().changed == ["news"])
        #expect(try await fixture.settle(since: before) == [])
        #expect(try await at(24 * 60 + 30) == ["first"])
        #expect(try await at(24 * 60 + 135) == ["second"])
        await fixture.close()
    }

    @Test func aThousandMessagesDuringReloadsAreAllAnsweredOnceInOrder() async throws {
        let fixture = try await Fixture.make()
        let count = 1_000
        let reloads = Task {
            var results: [ReloadReport.Result] = []
            // Bounded: ten reloads, each of a changed file, while the messages flow.
            for round in 0..<10 {
                try? fixture.write("desk", HotReloadTests.desk.replacingOccurrences(of: "reply: pong", with: "reply: pong \(round)"))
                results.append(await fixture.running.reload().result)
                await Task.yield()
            }
            return results
        }
        for number in 0..<count { _ = try await fixture.alice.send(TextContent("/echo \(number)"), to: .person("desk")) }
        let results = await reloads.value
        #expect(results == Array(repeating: .ok, count: 10))
        try await withTimeout(seconds: 60) { await fixture.running.host.waitUntilIdle() }
        try await withTimeout(seconds: 60) { await fixture.answers.waitFor(count) }
        #expect(fixture.answers.texts(from: 0) == (0..<count).map(String.init))
        await fixture.close()
    }
}

/// Log lines, kept.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
