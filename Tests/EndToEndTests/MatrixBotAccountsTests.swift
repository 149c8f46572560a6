import Foundation
import ParleyTesting
import ParleyBots
import ParleyCLI
import ParleyHosting
import ParleyCore
import ParleyMatrix
import Testing
import YAMLCoding

/// The allow list as an invite policy (no server needed).
@Suite struct MatrixInvitePolicyTests {
    private func allow(_ yaml: String) throws -> AllowList {
        try YAMLDecoder(environment: [:]).decode(AllowList.self, from: yaml, file: "allow.yaml")
    }

    private static let alice = MatrixConfiguration.Invite(roomID: "!r1:hs", inviter: "@alice:hs", isDirect: true)
    private static let bob = MatrixConfiguration.Invite(roomID: "!r2:hs", inviter: "@bob:hs", isDirect: false)
    private static let carolDM = MatrixConfiguration.Invite(roomID: "!r3:hs", inviter: "@carol:hs", isDirect: true)

    @Test func withoutAnAllowListEveryInviteIsAccepted() {
        let policy = MatrixBotAccounts.invitePolicy(nil)
        #expect(policy(Self.alice) && policy(Self.bob) && policy(Self.carolDM))
    }

    @Test(arguments: [
        ("users: ['@alice:hs']", [true, false, false]),
        ("users: [alice]", [true, false, false]),
        ("channels: ['group:!r2:hs']", [false, true, false]),
        ("channels: ['user:@carol:hs']", [false, false, true]),
        ("{users: [bob], channels: ['user:carol']}", [false, true, true]),
        ("users: []", [false, false, false]),
    ])
    func allowedInvitersAndRooms(yaml: String, expected: [Bool]) throws {
        let policy = MatrixBotAccounts.invitePolicy(try allow(yaml))
        #expect([Self.alice, Self.bob, Self.carolDM].map(policy) == expected)
    }
}

/// `MatrixBotAccounts` against the live homeserver: login problems and the bot's profile.
@Suite(.enabled(if: TestSynapse.isConfigured, "needs PARLEY_MATRIX_HOMESERVER (scripts/synapse start)"))
struct MatrixBotAccountsTests {
    private func support() throws -> LoadedBot {
        try #require(try MatrixBotServer.catalog().bots.first { $0.id == "support" })
    }

    @Test func prepareSetsTheDisplayNameFromTheBotFile() async throws {
        let account = try await TestSynapse.register("support")
        let config = try MatrixBotServer.config(bot: "support", user: account.userID, token: account.accessToken)
        let folder = try MatrixBotServer.temporaryFolder()
        let accounts = try MatrixBotAccounts(config: config, bots: [try support()], storagePath: folder + "/parley.db", log: { _ in })
        #expect(await accounts.prepare().isEmpty)
        let profile = try await MatrixClient(homeserver: try TestSynapse.url()).profile(userID: account.userID)
        #expect(profile["displayname"]?.stringValue == "Support")
        // One session database per account, next to the host's storage.
        #expect(FileManager.default.fileExists(atPath: folder + "/matrix-support.db"))
    }

    @Test func aBadTokenIsAClearProblem() async throws {
        let account = try await TestSynapse.register("support")
        let config = try MatrixBotServer.config(bot: "support", user: account.userID, token: "not-a-token")
        let accounts = try MatrixBotAccounts(config: config, bots: [try support()],
                                             storagePath: try MatrixBotServer.temporaryFolder() + "/parley.db", log: { _ in })
        let problems = await accounts.prepare()
        #expect(problems.count == 1)
        #expect(problems.first?.problem.contains("cannot log in") == true, "\(problems)")
        #expect(problems.first?.problem.contains("unauthorized") == true, "\(problems)")
    }

    @Test func anUnreachableServerIsAClearProblem() async throws {
        let config = try MatrixBotServer.config(bot: "support", user: "@support:localhost", token: "t",
                                                homeserver: "http://127.0.0.1:9")
        let accounts = try MatrixBotAccounts(config: config, bots: [try support()],
                                             storagePath: try MatrixBotServer.temporaryFolder() + "/parley.db", log: { _ in })
        let problems = await accounts.prepare()
        #expect(problems.first?.problem.contains("networkUnavailable") == true, "\(problems)")
    }

    @Test func aBotWithoutAnAccountIsRefused() throws {
        let config = try MatrixBotServer.config(bot: "someone-else", user: "@x:localhost", token: "t",
                                                homeserver: "http://127.0.0.1:9")
        #expect(throws: ParleyError.self) {
            _ = try MatrixBotAccounts(config: config, bots: [try support()],
                                      storagePath: try MatrixBotServer.temporaryFolder() + "/parley.db", log: { _ in })
        }
    }
}
