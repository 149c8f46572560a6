import Foundation
import ParleyBots
import ParleyCore
import ParleyMatrix
import Synchronization
import YAMLCoding

/// The bots' accounts on a homeserver (`transport: {kind: matrix}`): one `MatrixTransport` per
/// bot with its account from `transport.accounts`, its session kept in its own SQLite file
/// beside the host's storage (`matrix-<bot>.db`), invites accepted by the bot's `allow` list.
/// `prepare()` logs each in, sets its display name (and `mxc://` avatar) from the bot file and
/// joins the rooms its bot file names; `transport(for:)` then shows the bot its own names
/// (`user:alice`, `group:agents`) through a `RenamingTransport`.
///
///     let accounts = try MatrixBotAccounts(config: config, bots: catalog.bots, storagePath: path)
///     for (id, problem) in await accounts.prepare() { log(problem) }
///     let transport = accounts.transport(for: accounts.bots[0])
public final class MatrixBotAccounts: Sendable {
    /// One bot's Matrix side.
    public struct Bot: Sendable {
        /// The bot's id (its file name or `id:`).
        public let id: String
        /// Its account's transport, speaking Matrix ids.
        public let transport: MatrixTransport
        /// Display name and avatar from the bot file.
        let name: String?
        let avatar: String?
        /// The names of the rooms (keys of `transport.rooms`) it joins at start.
        let rooms: [String]
    }

    /// The bots in catalog order.
    public let bots: [Bot]
    /// The homeserver they log in to.
    public let homeserver: URL
    let settings: MatrixSettings
    private let log: @Sendable (String) -> Void
    /// Room name → room id, as joined by `prepare()`.
    private let joined = Mutex<[String: String]>([:])

    /// Builds the transports of `bots` (nothing is contacted yet).
    /// - Parameters:
    ///   - databases: where the account databases go.
    /// - Throws: `ParleyError(.invalidArgument)` naming the config key that is missing or wrong.
    init(settings: MatrixSettings, bots: [LoadedBot], databases: AccountDatabases, log: @escaping @Sendable (String) -> Void) throws {
        let homeserver = try Self.homeserver(settings)
        var built: [Bot] = []
        for bot in bots {
            var matrix = try Self.configuration(bot: bot.id, file: bot.file, settings: settings, homeserver: homeserver, databases: databases,
                                                log: { [id = bot.id] line in log("\(id): \(line)") })
            matrix.invitePolicy = Self.invitePolicy(bot.definition.allow)
            built.append(Bot(id: bot.id, transport: try MatrixTransport(configuration: matrix),
                             name: bot.definition.name?.value, avatar: bot.definition.avatar?.value,
                             rooms: settings.rooms(usedBy: bot)))
        }
        self.bots = built
        self.homeserver = homeserver
        self.settings = settings
        self.log = log
    }

    /// The accounts of a `kind: matrix` config (its `${VAR}`s read from `environment`), their
    /// databases in the folder of `storagePath` (a temporary one for `:memory:`).
    /// - Throws: the section's decoding errors, or `ParleyError(.invalidArgument)`.
    public convenience init(config: HostConfig, bots: [LoadedBot], storagePath: String,
                            environment: [String: String] = ProcessInfo.processInfo.environment,
                            log: @escaping @Sendable (String) -> Void = MatrixConfiguration.standardErrorLog) throws {
        let section = config.transport ?? TransportConfig.empty
        let settings = try YAMLDecoder(environment: environment).decode(MatrixSettings.self, from: section.section,
                                                                       source: SourceFile(name: "config.yaml", text: ""))
        let storage = HostStorage(config: nil, resolve: { $0 }, override: storagePath)
        try self.init(settings: settings, bots: bots, databases: storage.accountDatabases(), log: log)
    }

    /// The homeserver of the settings.
    /// - Throws: `ParleyError(.invalidArgument)` naming the key at fault.
    static func homeserver(_ settings: MatrixSettings) throws -> URL {
        guard let text = settings.homeserver?.value, let homeserver = URL(string: text),
              homeserver.scheme == "http" || homeserver.scheme == "https"
        else {
            throw ParleyError(.invalidArgument, "transport.homeserver must be an http(s) URL",
                              context: ["field": "transport.homeserver", "value": settings.homeserver?.value ?? ""])
        }
        if let problem = MatrixSettings.insecureProblem(homeserver: text, allowInsecure: settings.allowsInsecure) {
            throw ParleyError(.invalidArgument, problem, context: ["field": "transport.homeserver", "value": text])
        }
        return homeserver
    }

    /// The transport settings of bot `bot`'s account (`transport.accounts.<bot>`), its session
    /// database (and crypto store, with encryption on) in `databases`, its warnings to `log`.
    /// `file` names the bot's file in errors.
    /// - Throws: `ParleyError(.invalidArgument)` naming the key at fault (or a crypto store the
    ///   pickle key does not open).
    static func configuration(bot: String, file: String, settings: MatrixSettings, homeserver: URL, databases: AccountDatabases,
                              log: @escaping @Sendable (String) -> Void) throws -> MatrixConfiguration {
        guard let account = settings.accounts?[bot] else {
            throw ParleyError(.invalidArgument, "bot '\(bot)' has no entry in transport.accounts",
                              context: ["field": "transport.accounts.\(bot)", "file": file])
        }
        guard let credentials = settings.credentials(of: bot) else {
            throw ParleyError(.invalidArgument, "account '\(bot)' has an empty password and no access_token",
                              context: ["field": "transport.accounts.\(bot)", "line": String(account.mark.line)])
        }
        var configuration = MatrixConfiguration(homeserver: homeserver, userID: account.user.value, credentials: credentials,
                                                databasePath: databases.location("matrix-\(bot)", of: bot))
        if let maxRooms = settings.maxRooms?.value { configuration.maxRooms = maxRooms }
        configuration.attachVCardFile = settings.attachesVCardFiles
        configuration.accountDataLock = databases.accountDataLock()
        configuration.log = log
        (configuration.encryptionMode, configuration.encryption) = try settings.encryption(bot: bot, databases: databases, log: log)
        return configuration
    }

    /// Logs every bot in (whoami for a token), sets its display name and avatar, and joins the
    /// rooms it uses. Returns a clear problem per bot that cannot start (bad token or password,
    /// server unreachable, a room it cannot join); a failed profile update is only logged.
    public func prepare() async -> [(bot: String, problem: String)] {
        var problems: [(bot: String, problem: String)] = []
        for bot in bots {
            do {
                try await bot.transport.setOwnProfile()
            } catch {
                problems.append((bot.id, "bot '\(bot.id)' (\(bot.transport.userID)) cannot log in to \(homeserver.absoluteString): \(error)"))
                continue
            }
            let avatar = bot.avatar.flatMap { $0.hasPrefix("mxc://") ? $0 : nil }
            if let url = bot.avatar, avatar == nil {
                log("\(bot.id): avatar \(url) is not an mxc:// URL; Matrix shows no avatar for it")
            }
            do {
                try await bot.transport.setOwnProfile(name: bot.name, avatar: avatar)
            } catch {
                log("\(bot.id): setting the display name/avatar failed: \(error)")
            }
            for name in bot.rooms {
                guard let room = settings.rooms?[name]?.value else { continue }
                do {
                    let id = try await bot.transport.join(room)
                    joined.withLock { $0[name] = id }
                } catch {
                    problems.append((bot.id, "bot '\(bot.id)' (\(bot.transport.userID)) cannot join room '\(name)' (\(room)): \(error)"))
                }
            }
        }
        return problems
    }

    /// The names `bot` uses, as this homeserver knows them (rooms as joined by `prepare()`).
    public func names(for bot: Bot) -> RenamingTransport.Names {
        settings.names(forAccount: bot.transport.userID, joined: joined.withLock { $0 })
    }

    /// `bot`'s transport under the names its bot file uses.
    public func transport(for bot: Bot) -> RenamingTransport {
        RenamingTransport(base: bot.transport, names: names(for: bot))
    }

    /// Invites a bot accepts: everyone's without an `allow` list; otherwise when the inviter is
    /// an allowed user (full id, or the localpart for a short name) or the room is an allowed
    /// channel (`group:!room:server`, or `user:` of the inviter for a direct room).
    public static func invitePolicy(_ allow: AllowList?) -> @Sendable (MatrixConfiguration.Invite) -> Bool {
        guard let allow, allow.users != nil || allow.channels != nil else { return { _ in true } }
        let users = Set((allow.users ?? []).map(\.value))
        let channels = Set((allow.channels ?? []).map(\.value))
        return { invite in
            let localpart = invite.inviter.dropFirst().split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
            if users.contains(invite.inviter) || (!localpart.isEmpty && users.contains(localpart)) { return true }
            if channels.contains("group:" + invite.roomID) { return true }
            return invite.isDirect && (channels.contains("user:" + invite.inviter) || channels.contains("user:" + localpart))
        }
    }
}
