import Foundation
import Testing

/// An independent client (matrix-nio, `scripts/matrix-nio-check.py`) talks to the support bot
/// hosted here over the live homeserver and checks the raw events.
@Suite(.enabled(if: MatrixBotServer.isConfigured, "needs PARLEY_MATRIX_HOMESERVER (scripts/synapse start)"))
struct MatrixNioCheckTests {
    @Test func cardsReactionsAndRepliesAreTheDocumentedEvents() async throws {
        let (host, account) = try await MatrixBotServer.host("support")
        let result = try await MatrixBotServer.run([
            MatrixBotServer.python, "scripts/matrix-nio-check.py", "check",
            "--homeserver", try MatrixBotServer.url().absoluteString, "--secret", try MatrixBotServer.secret(),
            "--bot", account.userID,
        ], timeout: .seconds(150))
        await host.stop()
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("all as documented"), "\(result.output)")
    }
}
