import Foundation
import ParleyTesting
import ParleyBots
import ParleyCLI
import ParleyHosting
import ParleyCore
import ParleyMatrix
import Testing
import YAMLCoding

/// The Synapse of `scripts/synapse start` (see `PARLEY_MATRIX_*`) and the repository's bots.
enum MatrixBotServer {
    /// The repository root, where the example bots live.
    static let root = TestFixtures.repository

    /// The repository's example bots (bots/ of config.yaml) and their flow-test files.
    static func catalog() throws -> HostCatalog {
        let catalog = HostCatalog.load(configFile: root.appendingPathComponent("config.yaml").path, resolve: { $0 },
                                       environment: [:])
        #expect(catalog.errors.isEmpty, "\(catalog.errors)")
        return catalog
    }

    /// A `kind: matrix` host config for one bot and account (YAML, as a user writes it).
    static func config(bot: String, user: String, token: String, homeserver: String? = nil) throws -> HostConfig {
        let text = """
        transport:
          kind: matrix
          homeserver: \(try homeserver ?? TestSynapse.url().absoluteString)
          accounts:
            \(bot): { user: "\(user)", access_token: "\(token)" }
        """
        return try YAMLDecoder(environment: [:]).decode(HostConfig.self, from: text, file: "matrix-test.yaml")
    }

    /// Runs the example bot `id` on a fresh account through `MatrixBotAccounts` and `BotHost`.
    static func host(_ id: String) async throws -> (host: BotHost, account: MatrixRegistrar.Account) {
        let catalog = try catalog()
        let loaded = try #require(catalog.bots.first { $0.id == id })
        let account = try await TestSynapse.register(id)
        try await TestSynapse.setRateLimit(of: account.userID)
        let config = try config(bot: id, user: account.userID, token: account.accessToken)
        let accounts = try MatrixBotAccounts(config: config, bots: [loaded], storagePath: try temporaryFolder() + "/parley.db",
                                             log: { _ in })
        let problems = await accounts.prepare()
        #expect(problems.isEmpty, "\(problems)")
        let host = BotHost(store: MemoryBotStore())
        try host.add(try CompiledBot(id: loaded.id, definition: loaded.definition, file: loaded.file),
                     connection: BotConnection(transport: accounts.transport(for: try #require(accounts.bots.first))))
        let started = await host.start()
        #expect(started == [id])
        return (host, account)
    }

    /// A new temporary folder.
    static func temporaryFolder() throws -> String { try TemporaryFolder("parley-matrix-bot").path }

    /// A folder with a config on the test Synapse for one bot, `desk`, on `account` (its token),
    /// with `rooms` (name → alias or id), and `bots/desk.yaml` holding `botFile`.
    static func deskFolder(account: MatrixRegistrar.Account, rooms: [String: String] = [:], botFile: String) throws -> String {
        let folder = try temporaryFolder()
        try FileManager.default.createDirectory(atPath: folder + "/bots", withIntermediateDirectories: true)
        let roomLines = rooms.isEmpty ? "" : "\n  rooms:" + rooms.sorted { $0.key < $1.key }.map { "\n    \($0.key): \"\($0.value)\"" }.joined()
        try """
            transport:
              kind: matrix
              homeserver: \(try TestSynapse.url().absoluteString)
              accounts:
                desk: { user: "\(account.userID)", access_token: "\(account.accessToken)" }\(roomLines)
            storage: { path: state/parley.db }
            """.write(toFile: folder + "/config.yaml", atomically: true, encoding: .utf8)
        try botFile.write(toFile: folder + "/bots/desk.yaml", atomically: true, encoding: .utf8)
        return folder
    }

    /// The host of `folder`'s config, composed as `parley run` composes it (not started).
    static func runningHost(_ folder: String) async throws(HostError) -> RunningHost {
        let loaded = HostLoader.load(configFile: "config.yaml", resolve: { folder + "/" + $0 }, environment: [:])
        #expect(loaded.errors.isEmpty, "\(loaded.errors)")
        return try await RunningHost.make(loaded, options: RunningHost.Options(resolve: { folder + "/" + $0 }, logger: .silent))
    }
}
