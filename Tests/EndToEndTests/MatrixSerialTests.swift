import Foundation
import ParleyTesting
import ParleyCLI
import ParleyHosting
import ParleyCore
import ParleyFlowTest
import ParleyMatrix
import Testing

/// The Matrix tests that load or disturb the homeserver (a 500-message batch, a bot judged by
/// its silences, a 10-second outage): one after another, in their own `swift test` run
/// (`PARLEY_MATRIX_SERIAL=1 swift test --filter MatrixSerialTests`, see scripts/test), so they
/// neither slow down nor break the other Matrix suites.
@Suite(.serialized, .enabled(if: TestSynapse.isConfigured && TestSynapse.environment["PARLEY_MATRIX_SERIAL"] == "1",
                             "needs PARLEY_MATRIX_HOMESERVER and PARLEY_MATRIX_SERIAL=1"))
struct MatrixSerialTests {
    static let rooms = 50
    static let perRoom = 10

    @Test func fiveHundredMessagesToFiftyRoomsArriveCompleteOnceAndInOrder() async throws {
        let bot = try await TestSynapse.register("batch")
        try await TestSynapse.setRateLimit(of: bot.userID)
        let url = try TestSynapse.url()
        let botClient = MatrixClient(homeserver: url, accessToken: bot.accessToken)
        // The bot's own rooms: what is read back is the server's record, the same for every member.
        let rooms = try await withThrowingTaskGroup(of: String.self) { group in
            var rooms: [String] = []
            for index in 0..<Self.rooms {
                if index >= 8, let room = try await group.next() { rooms.append(room) }
                group.addTask { try await botClient.createRoom(["preset": "private_chat"]) }
            }
            for try await room in group { rooms.append(room) }
            return rooms
        }
        #expect(Set(rooms).count == Self.rooms)
        // Synapse's default (0.2/s, burst 10) would make 500 messages take 40 minutes; a limit
        // below the send rate with a small burst still makes the server answer 429 many times.
        try await TestSynapse.setRateLimit(of: bot.userID, perSecond: 8, burst: 10)

        var config = MatrixConfiguration(homeserver: url, userID: bot.userID, credentials: .accessToken(bot.accessToken),
                                         databasePath: try MatrixBotServer.temporaryFolder() + "/batch.db")
        config.log = { _ in }
        let counter = RateLimitCounter(try MatrixTransport(configuration: config), concurrentRooms: 8)
        let client = try ChatClient(transport: counter)
        try await client.connect()
        let texts = (0..<Self.perRoom).map { TextContent("batch message \($0)") }
        let results = await client.batchSend(texts, to: rooms.map(Channel.group))
        await client.close()
        let failures = results.compactMap { result -> String? in
            if case .failure(let error) = result { return "\(error)" }
            return nil
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        #expect(counter.refused.load(ordering: .relaxed) > 0, "the homeserver never answered 429: the limit was not reached")
        // Rooms are independent: several were sent to at once (and each stayed in order, below).
        #expect(counter.mostInFlight.load(ordering: .relaxed) > 1)

        // Read every room back: each message exactly once, in order.
        for room in rooms {
            let page = try await botClient.messages(room: room, from: nil, direction: "b", limit: 100)
            let bodies = (page["chunk"]?.arrayValue ?? []).reversed().compactMap { event -> String? in
                guard event["sender"]?.stringValue == bot.userID, event["type"]?.stringValue == "m.room.message" else { return nil }
                return event["content"]?["body"]?.stringValue
            }
            #expect(bodies == texts.map(\.text), "room \(room): \(bodies)")
        }
    }

    @Test func theSameTestsRunAgainstABotParleyDoesNotHost() async throws {
        // The bot runs here too, but the runner only knows its Matrix id (`--target`).
        let (host, account) = try await MatrixBotServer.host("support")
        let catalog = try MatrixBotServer.catalog()
        let files = catalog.testFiles.filter { $0.file.hasSuffix("support.test.yaml") }
            .map { TestDiscovery.Found(file: $0.file, path: $0.path) }
        try #require(files.count == 1)
        let stage = MatrixTestStage(homeserver: try TestSynapse.url(), sharedSecret: try TestSynapse.sharedSecret(),
                                    // Generous: an outside bot gives no idle signal, and a loaded
                                    // machine can pause it for seconds between two answers.
                                    target: account.userID, quietPeriod: .seconds(5),
                                    directory: URL(fileURLWithPath: try MatrixBotServer.temporaryFolder()))
        let suite = TestSuite(bots: catalog.bots, host: MatrixTargetBotHost(), stage: stage, jobs: 4)
        let results = await suite.run(files)
        await host.stop()
        let report = TextReport.text(for: results)
        // These cannot pass: "business card", as its profile of `bob` lives in the test file,
        // which an outside bot cannot read (the test user's own name is set on the server); and
        // the hand-off tests, as an outside bot joins `group:agents` only when invited there
        // during the test, and greets the group (the hosted bot's groups exist before it
        // starts).
        let failed = results.flatMap(\.tests).filter(\.isFailure).map(\.name)
        #expect(failed == ["business card", "refund flow with a retry and a hand-off",
                           "hand-off passes the conversation to the agents until resolved",
                           "someone outside the agents' group cannot take or resolve a ticket",
                           "tickets go to the agents in turn, skipping one who is away",
                           "a transfer carries a note; an internal note never reaches the customer",
                           "a resolved customer can rate with a reaction, and a thumbs-up later is thanked"], "\(report)")
        #expect(TestSummary(results).passed == 6, "\(report)")
    }

    @Test func ordersAroundAHomeserverRestartAreAnsweredExactlyOnce() async throws {
        let (host, account) = try await MatrixBotServer.host("support")
        let result = try await ScriptRunner.run("matrix-nio-check.py", ["restart",
            "--homeserver", try TestSynapse.url().absoluteString, "--secret", try TestSynapse.sharedSecret(),
            "--bot", account.userID, "--restart-cmd", MatrixBotServer.root.path + "/scripts/matrix-synapse-restart 10",
        ], timeout: .seconds(240), mergingOutput: true)
        await host.stop()
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains("each answered exactly once"), "\(result.stdout)")
    }
}
