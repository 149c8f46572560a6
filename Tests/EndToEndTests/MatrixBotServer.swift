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
}
