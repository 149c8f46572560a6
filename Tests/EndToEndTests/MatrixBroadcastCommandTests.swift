import Foundation
import ParleyTesting
import ParleyCLI
import ParleyHosting
import ParleyCore
import ParleyMatrix
import Testing

/// `parley broadcast` with `transport: matrix`: the bot's account sends to each recipient's
/// direct room on the live homeserver, and running the same job again sends nothing twice.
@Suite(.enabled(if: TestSynapse.isConfigured, "needs PARLEY_MATRIX_HOMESERVER (scripts/synapse start)"))
struct MatrixBroadcastCommandTests {
    private func parley(_ arguments: [String], in folder: String) async -> (status: Int32, stdout: String, stderr: String) {
        let output = CapturedOutput()
        let status = await ParleyCommand.main(arguments, context: CommandContext(output: output, environment: [:], currentDirectory: folder))
        return (status, output.standardOutput, output.standardError)
    }

    /// The bodies `user` sees from `sender` in the rooms it was invited to (joining them).
    private func received(by user: MatrixRegistrar.Account, from sender: String) async throws -> [String] {
        let client = MatrixClient(homeserver: try TestSynapse.url(), accessToken: user.accessToken)
        let sync = try await client.sync(filterID: nil, since: nil, timeout: .zero)
        var bodies: [String] = []
        for room in (sync["rooms"]?["invite"]?.objectValue ?? [:]).keys.sorted() {
            _ = try await client.join(room)
            let page = try await client.messages(room: room, from: nil, direction: "b", limit: 50)
            bodies += (page["chunk"]?.arrayValue ?? []).reversed().compactMap { event in
                guard event["sender"]?.stringValue == sender, event["type"]?.stringValue == "m.room.message" else { return nil }
                return event["content"]?["body"]?.stringValue
            }
        }
        return bodies
    }

    @Test func aBroadcastReachesEachRecipientOnceAndResumesWithoutRepeating() async throws {
        let news = try await TestSynapse.register("news")
        let alice = try await TestSynapse.register("alice")
        let bob = try await TestSynapse.register("bob")
        let folder = try MatrixBotServer.temporaryFolder()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try """
        transport:
          kind: matrix
          homeserver: \(try TestSynapse.url().absoluteString)
          accounts:
            news: { user: "\(news.userID)", access_token: "\(news.accessToken)" }
        storage:
          path: data/parley.db
        """.write(toFile: folder + "/config.yaml", atomically: true, encoding: .utf8)
        let arguments = ["broadcast", "--bot", "news", "--to", "user:\(alice.userID)", "--to", "user:\(bob.userID)",
                         "--text", "Hello {{recipient.id}}", "--id", "launch"]

        let first = await parley(arguments, in: folder)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("broadcast launch: 2 recipients"), "\(first.stdout)")
        #expect(first.stdout.contains("2 sent, 0 failed, 0 pending of 2"), "\(first.stdout)")

        let again = await parley(arguments, in: folder)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("exists: resuming, 0 of 2 pending"), "\(again.stdout)")

        #expect(try await received(by: alice, from: news.userID) == ["Hello \(alice.userID)"])
        #expect(try await received(by: bob, from: news.userID) == ["Hello \(bob.userID)"])
    }

    @Test func aBotWithoutAnAccountIsAClearError() async throws {
        let folder = try MatrixBotServer.temporaryFolder()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try """
        transport:
          kind: matrix
          homeserver: http://127.0.0.1:9
          accounts:
            news: { user: "@news:localhost", access_token: "t" }
        storage:
          path: ":memory:"
        """.write(toFile: folder + "/config.yaml", atomically: true, encoding: .utf8)
        let run = await parley(["broadcast", "--bot", "other", "--to", "user:@a:localhost", "--text", "hi"], in: folder)
        #expect(run.status == 1)
        #expect(run.stderr.contains("other"), "\(run.stderr)")
    }
}
