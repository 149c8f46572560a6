import Foundation
import ParleyTesting
import Testing

/// An independent client (matrix-nio, `scripts/matrix-nio-check.py`) talks to the support bot
/// hosted here over the live homeserver and checks the raw events.
@Suite(.enabled(if: TestSynapse.isConfigured, "needs PARLEY_MATRIX_HOMESERVER (scripts/synapse start)"))
struct MatrixNioCheckTests {
    @Test func cardsReactionsAndRepliesAreTheDocumentedEvents() async throws {
        let (host, account) = try await MatrixBotServer.host("support")
        let result = try await ScriptRunner.run("matrix-nio-check.py", ["check",
            "--homeserver", try TestSynapse.url().absoluteString, "--secret", try TestSynapse.sharedSecret(),
            "--bot", account.userID,
        ], timeout: .seconds(150), mergingOutput: true)
        await host.stop()
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains("all as documented"), "\(result.stdout)")
    }
}
