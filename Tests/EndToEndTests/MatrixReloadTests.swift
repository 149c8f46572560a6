import Foundation
import ParleyBots
import ParleyCore
import ParleyHosting
import ParleyMatrix
import ParleyTesting
import Testing

/// Hot reload of a host on the live homeserver, as SIGHUP does it under `parley run --config
/// matrix.yaml`: a broken file changes nothing, a new command answers, a conversation in an
/// `ask` keeps its place, a bot file added for a configured account connects, and a thousand
/// messages sent across reloads are each answered once, in order. With the serial tests: its
/// thousand messages load the homeserver.
extension MatrixSerialTests {
    static let reloadDesk = TestFixtures.reloadedDesk

    @Test func reloadsApplyWhileTheBotsRunOnMatrix() async throws {
        let bot = try await TestSynapse.register("desk")
        let extra = try await TestSynapse.register("extra")
        let alice = try await TestSynapse.register("alice")
        // The suite's messages come faster than Synapse's default limit (0.2/s, burst 10).
        for account in [bot, extra, alice] { try await TestSynapse.setRateLimit(of: account.userID) }
        let folder = try MatrixBotServer.deskFolder(account: bot, botFile: Self.reloadDesk)
        // A second account, configured before its bot file exists: adding the file later
        // changes no `transport:` section, so the reload connects it.
        let config = try String(contentsOfFile: folder + "/config.yaml", encoding: .utf8)
        try config.replacingOccurrences(of: "\nstorage:", with: "\n    extra: { user: \"\(extra.userID)\", access_token: \"\(extra.accessToken)\" }\nstorage:")
            .write(toFile: folder + "/config.yaml", atomically: true, encoding: .utf8)
        let resolve: @Sendable (String) -> String = { folder + "/" + $0 }
        let loaded = HostLoader.load(configFile: "config.yaml", resolve: resolve, environment: [:])
        try #require(loaded.errors.isEmpty, "\(loaded.errors)")
        var options = RunningHost.Options(resolve: resolve, logger: .silent)
        options.reloadSource = { HostLoader.load(configFile: "config.yaml", resolve: resolve, environment: [:]) }
        let running = try await RunningHost.make(loaded, options: options)
        #expect(await running.start() == ["desk"])
        func write(_ name: String, _ text: String) throws {
            try text.write(toFile: folder + "/bots/\(name).yaml", atomically: true, encoding: .utf8)
        }

        var aliceConfig = MatrixConfiguration(homeserver: try TestSynapse.url(), userID: alice.userID,
                                              credentials: .accessToken(alice.accessToken), databasePath: folder + "/alice.db")
        aliceConfig.log = { _ in }
        let client = try ChatClient(transport: try MatrixTransport(configuration: aliceConfig))
        let received = ReceivedTexts(of: alice.userID)
        await client.setEventHandler { received.take($0) }
        try await client.connect()
        /// Sends `text` to `to` and returns the `count` texts that come back.
        func ask(_ text: String, to: String = bot.userID, count: Int = 1) async throws -> [String] {
            let before = received.count
            _ = try await client.send(TextContent(text), to: .person(to))
            try await withTimeout("\(count) answers to '\(text)'", seconds: 60) { await received.waitFor(before + count) }
            return received.texts(from: before)
        }

        #expect(try await ask("/ping") == ["pong"])
        #expect(try await ask("/order") == ["Which order?"])

        try write("desk", Self.reloadDesk.replacingOccurrences(of: "  ping: { reply: pong }", with: "  ping: { replly: pong }"))
        let broken = await running.reload()
        #expect(broken.result == .invalid)
        #expect(broken.errors.contains { $0.hasPrefix("bots/desk.yaml:3:11: error: unknown key 'replly'") }, "\(broken.errors)")

        try write("desk", Self.reloadDesk.replacingOccurrences(of: "noted.", with: "noted, thanks.")
            .replacingOccurrences(of: "  ping: { reply: pong }", with: "  ping: { reply: pong }\n  hello: { reply: \"Hello!\" }"))
        let changed = await running.reload()
        #expect(changed.result == .ok && changed.changed == ["desk"])
        // Still in the `ask` it was in before both reloads.
        #expect(try await ask("42") == ["Order 42 noted, thanks."])
        #expect(try await ask("/hello") == ["Hello!"])

        try write("extra", "commands:\n  hi: { reply: hello from extra }\n")
        let added = await running.reload()
        #expect(added.result == .ok && added.added == ["extra"], "\(added.errors)")
        #expect(try await ask("/hi", to: extra.userID) == ["hello from extra"])

        // A thousand messages while the desk bot is swapped three times.
        let count = 1_000
        let before = received.count
        let reloads = Task {
            var results: [ReloadReport.Result] = []
            for round in 0..<3 {
                try? write("desk", Self.reloadDesk.replacingOccurrences(of: "reply: pong", with: "reply: pong \(round)"))
                results.append(await running.reload().result)
            }
            return results
        }
        for number in 0..<count { _ = try await client.send(TextContent("/echo \(number)"), to: .person(bot.userID)) }
        #expect(await reloads.value == [.ok, .ok, .ok])
        try await withTimeout("\(count) echoes", seconds: 240) { await received.waitFor(before + count) }
        #expect(received.texts(from: before) == (0..<count).map(String.init))
        await client.close()
        await running.shutdown()
    }
}
