import Foundation
import TestSupport
import ParleyBots
import ParleyCLI
import ParleyHosting
import ParleyCore
import ParleyMatrix
import Testing
import YAMLCoding

/// The Synapse of `scripts/synapse start` (see `PARLEY_MATRIX_*`) and the repository's bots.
enum MatrixBotServer {
    static let environment = ProcessInfo.processInfo.environment
    /// Matrix suites run only when a homeserver is configured.
    static let isConfigured = environment["PARLEY_MATRIX_HOMESERVER"] != nil
    /// The repository root (this file is Tests/ParleyMatrixBotTests/MatrixBotServer.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func url() throws -> URL {
        try #require(environment["PARLEY_MATRIX_HOMESERVER"].flatMap(URL.init(string:)), "PARLEY_MATRIX_HOMESERVER is not a URL")
    }

    static func secret() throws -> String {
        try #require(environment["PARLEY_MATRIX_SHARED_SECRET"], "PARLEY_MATRIX_SHARED_SECRET is not set")
    }

    static func registrar() throws -> MatrixRegistrar { MatrixRegistrar(homeserver: try url(), sharedSecret: try secret()) }

    /// Registers a fresh account `<prefix>-<random>`.
    static func register(_ prefix: String) async throws -> MatrixRegistrar.Account {
        let tag = UUID().uuidString.prefix(8).lowercased()
        return try await registrar().register("\(prefix)-\(tag)", password: "pw-\(UUID().uuidString)")
    }

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
          homeserver: \(try homeserver ?? url().absoluteString)
          accounts:
            \(bot): { user: "\(user)", access_token: "\(token)" }
        """
        return try YAMLDecoder(environment: [:]).decode(HostConfig.self, from: text, file: "matrix-test.yaml")
    }

    /// The python of the synapse venv (matrix-nio is installed there).
    static var python: String {
        if let python = environment["PARLEY_MATRIX_PYTHON"] { return python }
        let home = environment["PARLEY_SYNAPSE_HOME"]
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/parley/synapse").path
        return home + "/venv/bin/python"
    }

    /// Runs the example bot `id` on a fresh account through `MatrixBotAccounts` and `BotHost`.
    static func host(_ id: String) async throws -> (host: BotHost, account: MatrixRegistrar.Account) {
        let catalog = try catalog()
        let loaded = try #require(catalog.bots.first { $0.id == id })
        let account = try await register(id)
        // Synapse's default (0.2/s, burst 10) would throttle a bot that several tests talk to.
        try await rateLimit(account.userID)
        let config = try config(bot: id, user: account.userID, token: account.accessToken)
        let accounts = try MatrixBotAccounts(config: config, bots: [loaded], storagePath: temporaryFolder() + "/parley.db",
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
    static func temporaryFolder() -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-matrix-bot-tests")
            .appendingPathComponent(UUID().uuidString)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.path
    }

    /// Runs `arguments` with a deadline; returns the exit status and the combined output.
    static func run(_ arguments: [String], timeout: Duration) async throws -> (status: Int32, output: String) {
        let result = try await ProcessRunner.run(arguments[0], Array(arguments.dropFirst()), in: root, timeout: timeout, mergingOutput: true)
        return (result.status, result.stdout)
    }
}

extension MatrixBotServer {
    /// One admin per test process (for rate-limit overrides).
    private static let admin = Task { try await registrar().register("admin-\(UUID().uuidString.prefix(8).lowercased())",
                                                                     password: "pw-\(UUID().uuidString)", admin: true) }

    /// Sets `userID`'s message rate limit (0, 0 lifts it).
    static func rateLimit(_ userID: String, perSecond: Int = 0, burst: Int = 0) async throws {
        try await registrar().overrideRateLimit(of: userID, messagesPerSecond: perSecond, burstCount: burst,
                                                adminToken: try await admin.value.accessToken)
    }
}
