import Foundation
import ParleyTesting
import ParleyCLI
import ParleyCore
import ParleyHosting
import ParleyMatrix
import Testing

/// `parley test --target` on a homeserver whose registration secret you do not have: the test
/// user logs in with its account from the config, and tests that need virtual time are
/// skipped with their reason and counted in the summary.
@Suite(.enabled(if: TestSynapse.isConfigured, "needs PARLEY_MATRIX_HOMESERVER (scripts/synapse start)"))
struct MatrixTargetAccountsTests {
    @Test func theTestUserComesFromTheConfigsAccounts() async throws {
        let (host, bot) = try await MatrixBotServer.host("support")
        let alice = try await TestSynapse.register("alice")
        let folder = try MatrixBotServer.temporaryFolder()
        try FileManager.default.createDirectory(atPath: folder + "/bots", withIntermediateDirectories: true)
        // The bot's file, as the team that runs it elsewhere has it (tests name its cards).
        try FileManager.default.copyItem(atPath: MatrixBotServer.root.path + "/bots/support.yaml", toPath: folder + "/bots/support.yaml")
        try """
            transport:
              kind: matrix
              homeserver: \(try TestSynapse.url().absoluteString)
              accounts:
                support: { user: "\(bot.userID)", access_token: "${SUPPORT_TOKEN}" }
                alice: { user: "\(alice.userID)", password: "${ALICE_PASSWORD}" }
              rooms:
                agents: "#agents-unused:localhost"
                supervisors: "#supervisors-unused:localhost"
                phone: "#phone-unused:localhost"
            bots: bots
            """.write(toFile: folder + "/config.yaml", atomically: true, encoding: .utf8)
        try """
            bot: support
            user: alice
            tests:
              - name: the manual
                steps:
                  - send: /docs
                  - expect: { card: greeting }
                  - expect: { card: link, fields: { url: "https://example.com/docs" } }
              - name: a timeout
                steps:
                  - send: /refund
                  - advance: 11m
                  - expect: { contains: "close this" }
            """.write(toFile: folder + "/outside.test.yaml", atomically: true, encoding: .utf8)
        let output = CapturedOutput()
        // No PARLEY_MATRIX_SHARED_SECRET: nothing can be registered.
        let status = await ParleyCommand.main(["test", "--target", bot.userID, "outside.test.yaml"],
                                              context: CommandContext(output: output, environment: ["ALICE_PASSWORD": alice.password, "SUPPORT_TOKEN": bot.accessToken],
                                                                      currentDirectory: folder))
        await host.stop()
        #expect(status == 0, "\(output.standardOutput)\(output.standardError)")
        #expect(output.standardOutput.contains("ok    outside.test.yaml: the manual"), "\(output.standardOutput)")
        #expect(output.standardOutput.contains("skip  outside.test.yaml: a timeout (uses `advance` (virtual time)"), "\(output.standardOutput)")
        #expect(output.standardOutput.hasSuffix("1 passed, 0 failed, 1 skipped\n"), "\(output.standardOutput)")
    }

    @Test func withoutASecretOrAnAccountTheProblemIsNamed() async throws {
        let folder = try MatrixBotServer.temporaryFolder()
        try FileManager.default.createDirectory(atPath: folder + "/bots", withIntermediateDirectories: true)
        try """
            transport: { kind: matrix, homeserver: "http://127.0.0.1:9" }
            bots: bots
            """.write(toFile: folder + "/config.yaml", atomically: true, encoding: .utf8)
        try "bot: support\ntests: [ { name: t, steps: [ { send: hi } ] } ]\n"
            .write(toFile: folder + "/x.test.yaml", atomically: true, encoding: .utf8)
        let output = CapturedOutput()
        let status = await ParleyCommand.main(["test", "--target", "@support:localhost", "x.test.yaml"],
                                              context: CommandContext(output: output, environment: [:], currentDirectory: folder))
        #expect(status == 64)
        #expect(output.standardError.contains("set PARLEY_MATRIX_SHARED_SECRET"), "\(output.standardError)")
        #expect(output.standardError.contains("transport.accounts"), "\(output.standardError)")
    }
}
