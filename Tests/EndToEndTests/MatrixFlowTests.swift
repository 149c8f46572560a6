import Foundation
import ParleyTesting
import ParleyCLI
import ParleyHosting
import ParleyBots
import ParleyFlowTest
import Testing

/// The example bots' flow-test files, run over the live homeserver (`parley test` with a
/// `kind: matrix` config does the same).
@Suite(.enabled(if: TestSynapse.isConfigured, "needs PARLEY_MATRIX_HOMESERVER (scripts/synapse start)"))
struct MatrixFlowTests {
    static func stage() throws -> MatrixTestStage {
        MatrixTestStage(homeserver: try TestSynapse.url(), sharedSecret: try TestSynapse.sharedSecret(),
                        directory: URL(fileURLWithPath: try MatrixBotServer.temporaryFolder()))
    }
}

extension MatrixSerialTests {
    /// With the serial tests: every example flow test on fresh accounts, four at a time, is a
    /// load on the homeserver of its own. (Both tests here have also, rarely, found the bot idle
    /// before it answered the first message of a fresh direct room while the parallel suites
    /// loaded the machine: an open defect, not understood yet; see the closing note of #18.)
    @Test func aWrongExpectationFailsWithTheActualOutput() async throws {
        let catalog = try MatrixBotServer.catalog()
        let folder = try MatrixBotServer.temporaryFolder()
        let path = folder + "/wrong.test.yaml"
        try Data("""
        bot: support
        user: alice
        tests:
          - name: wrong answer
            steps:
              - send: what's up?
              - expect: { card: greeting }
              - expect: { text: "Something else entirely." }
        """.utf8).write(to: URL(fileURLWithPath: path))
        let suite = TestSuite(bots: catalog.bots, host: InProcessBotHost(), stage: try MatrixFlowTests.stage(), jobs: 1)
        let results = await suite.run([TestDiscovery.Found(file: "wrong.test.yaml", path: path)])
        let test = try #require(results.first?.tests.first)
        guard case .failed(let failure) = test.status else {
            Issue.record("a wrong expectation passed over Matrix")
            return
        }
        #expect(failure.report.contains("Sorry, I didn't get that. Try /help."), "\(failure.report)")
    }

    @Test func exampleFlowTestsPassOverMatrixAndVirtualTimeOnesAreSkipped() async throws {
        let catalog = try MatrixBotServer.catalog()
        let files = catalog.testFiles.map { TestDiscovery.Found(file: $0.file, path: $0.path) }
        try #require(files.count >= 2)
        let suite = TestSuite(bots: catalog.bots, host: InProcessBotHost(), stage: try MatrixFlowTests.stage(), jobs: 4)
        let results = await suite.run(files)
        let report = TextReport.text(for: results)
        let summary = TestSummary(results)
        #expect(summary.failed == 0, "\(report)")
        #expect(summary.passed >= 8, "\(report)")
        var skipped: [String] = []
        for file in results {
            for test in file.tests where test.skipReason != nil { skipped.append(test.name) }
        }
        // Exactly the tests with `advance` steps: the live server has no virtual time. The
        // story with a `restart` after every move runs: the bot reconnects on its account.
        #expect(Set(skipped) == ["weekday morning broadcast", "weekdays only, at nine Berlin time", "refund question times out",
                                 "a wrong answer starts the refund question's timeout over",
                                 "a call back request is followed up after half an hour",
                                 "an untaken ticket is announced again at 5 minutes and escalated at 15, once each",
                                 "a call back asked for on a Saturday evening in Berlin is promised for Monday 09:00",
                                 "across the change to summer time, Monday 09:00 is still 09:00 in Berlin",
                                 "subscribe, then receive the 9:00 news with the opt-out hint",
                                 "STOP in any case, with or without the prefix, ends the news",
                                 "the imported subscribers get the news",
                                 "an imported subscriber who opted out stays out after a restart",
                                 "STOP while the news job is paused halfway skips that member when it resumes"],
                "\(report)")
        #expect(report.contains("skip  "), "\(report)")
    }

    /// The same flow tests with `transport.encryption.mode: default`: every account has an
    /// encrypting device, the groups and direct rooms are encrypted, and the stories pass the
    /// same — greeting, cards, reactions, quotes, the refund flow, hand-off and the agents'
    /// commands, the restarts — while the server carries only `m.room.encrypted` messages.
    @Test func exampleFlowTestsPassInEncryptedRooms() async throws {
        let catalog = try MatrixBotServer.catalog()
        let files = catalog.testFiles.map { TestDiscovery.Found(file: $0.file, path: $0.path) }
        var stage = try MatrixFlowTests.stage()
        stage.encryptionMode = .default
        let log = SynapseAccessLog()
        let mark = log.mark()
        let results = await TestSuite(bots: catalog.bots, host: InProcessBotHost(), stage: stage, jobs: 4).run(files)
        let summary = TestSummary(results)
        #expect(summary.failed == 0 && summary.passed >= 8, "\(TextReport.text(for: results))")
        if log.path != nil {
            #expect((log.requests(by: nil, since: mark, matching: "/send/m.room.encrypted/") ?? 0) >= 50)
            #expect(log.requests(by: nil, since: mark, matching: "/send/m.room.message/") == 0)
        } else {
            Issue.record("PARLEY_SYNAPSE_ACCESS_LOG is not set: what the server carried is not checked")
        }
    }

    /// Users' reactions (`m.reaction` annotations) to the bot's messages answer its `ask` and
    /// its `reaction:` triggers; another user's too, in their own direct room.
    @Test func reactionsAreRoutedOverMatrix() async throws {
        let catalog = HostCatalog.load(configFile: TestFixtures.flowHost + "/config.yaml", resolve: { $0 }, environment: [:])
        try #require(catalog.errors.isEmpty, "\(catalog.errors)")
        let file = TestDiscovery.Found(file: "helper.test.yaml", path: TestFixtures.flowHost + "/reactions/helper.test.yaml")
        let results = await TestSuite(bots: catalog.bots, host: InProcessBotHost(), stage: try MatrixFlowTests.stage(), jobs: 2).run([file])
        let summary = TestSummary(results)
        #expect(summary.failed == 0 && summary.passed == 5, "\(TextReport.text(for: results))")
    }
}
