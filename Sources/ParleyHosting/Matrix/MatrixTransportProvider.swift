import Foundation
import ParleyBots
import ParleyCore
import ParleyFlowTest
import ParleyMatrix
import ParleyStore
import YAMLCoding

/// `transport: {kind: matrix}`: every bot logs in to a homeserver with its own account and
/// sees the names its bot file uses (`transport.rooms`, `transport.users`), keeping its
/// outbox, conversation state and sync position in `storage.path` like on the embedded hub.
public struct MatrixTransportProvider: TransportProvider {
    public static let kind = "matrix"

    let settings: MatrixSettings
    /// The bots the config was checked against (`parley run` connects these).
    let bots: [LoadedBot]

    public static func load(_ section: TransportConfig, bots: [LoadedBot], source: SourceFile,
                            environment: [String: String]) -> Result<any TransportProvider, YAMLErrors> {
        let settings: MatrixSettings
        do {
            settings = try YAMLDecoder(environment: environment).decode(MatrixSettings.self, from: section.section, source: source)
        } catch {
            return .failure(error)
        }
        let problems = settings.problems(bots: bots, source: source)
        guard problems.isEmpty else { return .failure(YAMLErrors(problems)) }
        return .success(MatrixTransportProvider(settings: settings, bots: bots))
    }

    public func connect(_ run: TransportRun) async throws -> TransportSession {
        let running = Set(run.bots.map(\.id))
        let logger = run.logger, clock = run.clock
        let accounts = try MatrixBotAccounts(settings: settings, bots: bots.filter { running.contains($0.id) },
                                             databases: try run.storage.accountDatabases(),
                                             log: { logger.log(.warn, at: clock.now(), bot: nil, $0, [:]) })
        let problems = await accounts.prepare()
        guard problems.isEmpty else {
            throw HostError(problems.map(\.problem).joined(separator: "\n"))
        }
        var connections: [String: BotConnection] = [:]
        for bot in accounts.bots {
            let transport = accounts.transport(for: bot)
            connections[bot.id] = run.profiles.connection(run.wrapTransport?(bot.id, transport) ?? transport,
                                                          storage: run.storage.outbox(bot: bot.id))
        }
        var session = TransportSession(connections: connections, summary: ["homeserver": accounts.homeserver.absoluteString])
        for bot in accounts.bots {
            let transport = bot.transport
            session.syncWatches[bot.id] = SyncWatch(lastSync: { transport.lastSuccessfulSync }, interval: transport.syncInterval)
        }
        // `storage.retention` for each account's seen events.
        let transports = accounts.bots.map(\.transport)
        session.prune = { cutoff in
            var deleted = 0
            for transport in transports { deleted += try await transport.prune(before: cutoff) }
            return deleted
        }
        // A reload's new bots log in with their own accounts, as at start.
        session.connectMore = { provider, run, ids in
            var added = run
            added.bots = run.bots.filter { ids.contains($0.id) }
            return try await provider.connect(added)
        }
        return session
    }

    public func broadcastSenders(storage: HostStorage) throws -> any BroadcastSenders {
        Senders(settings: settings, databases: try storage.accountDatabases())
    }

    /// Each bot's account with a session of the helpers' own (schemas `parley_helper_…`), logged
    /// in as the bot's own device: it sends in clear only, so an encrypting config has none.
    public func broadcastHelpers(storage: HostStorage) throws -> (any BroadcastSenders)? {
        let own = try storage.accountDatabases()
        guard settings.encryption?.parsedMode?.servesEncrypted != true, let helpers = own.helpers else { return nil }
        return Senders(settings: settings, databases: helpers, botDatabases: own)
    }

    /// Each bot's account as `parley run` keeps it (the same session database, so its device
    /// and direct rooms are reused), under its bot file's names.
    /// A helper's (`botDatabases` set): its own session, logged in as the bot's device.
    struct Senders: BroadcastSenders {
        let settings: MatrixSettings
        let databases: AccountDatabases
        /// For a helper: where the bot's own session is, whose device it logs in as.
        var botDatabases: AccountDatabases? = nil

        func transport(for bot: String) throws -> any Transport {
            do {
                var configuration = try MatrixBotAccounts.configuration(
                    bot: bot, file: "config.yaml", settings: settings, homeserver: MatrixBotAccounts.homeserver(settings), databases: databases,
                    log: { line in MatrixConfiguration.standardErrorLog("\(bot): \(line)") })
                if let botDatabases {
                    let session = botDatabases.location("matrix-\(bot)", of: bot), user = configuration.userID
                    // Read, never written: the bot's schema is its holder's (and fenced).
                    configuration.loginDevice = {
                        try? Connection(path: session).scalar("SELECT device_id FROM matrix_session WHERE user_id = ?", [.text(user)])?.string
                    }
                    configuration.rereadsRoomsBeforeCreating = true
                }
                let transport = try MatrixTransport(configuration: configuration)
                return RenamingTransport(base: transport, names: settings.names(forAccount: transport.userID))
            } catch {
                throw BroadcastError(.invalidMessage, "cannot use bot '\(bot)' on Matrix: \(error)")
            }
        }

        func close() async {}
    }

    public func testSetup(target: String?, environment: [String: String]) throws -> TestSetup {
        if let target, !MatrixSettings.isUserID(target) {
            throw ParleyError(.invalidArgument, "option '--target' needs a Matrix user id like @bot:server, got '\(target)'")
        }
        let homeserver = try MatrixBotAccounts.homeserver(settings)
        var stage: MatrixTestStage
        if let secret = environment["PARLEY_MATRIX_SHARED_SECRET"], !secret.isEmpty {
            stage = MatrixTestStage(homeserver: homeserver, sharedSecret: secret, target: target)
        } else {
            // A server whose secret you do not have: the test users are the config's accounts.
            var configured: [String: MatrixTestStage.ConfiguredAccount] = [:]
            for entry in settings.accounts?.entries ?? [] {
                guard let credentials = settings.credentials(of: entry.name) else { continue }
                configured[entry.name] = MatrixTestStage.ConfiguredAccount(userID: entry.value.user.value, credentials: credentials)
            }
            guard !configured.isEmpty else {
                throw ParleyError(.invalidArgument, "testing against Matrix needs test users: set PARLEY_MATRIX_SHARED_SECRET to the "
                                  + "homeserver's registration_shared_secret, or give the test users' accounts in transport.accounts")
            }
            stage = MatrixTestStage(homeserver: homeserver, accounts: configured, target: target)
        }
        stage.encryptionMode = settings.encryption?.parsedMode ?? .off
        return TestSetup(stage: stage, host: target == nil ? InProcessBotHost() : MatrixTargetBotHost())
    }
}
