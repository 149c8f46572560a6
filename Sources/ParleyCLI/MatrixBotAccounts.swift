import Foundation
import ParleyBots
import ParleyCore
import ParleyMatrix

/// `transport: {kind: matrix}` for `parley run`: one `MatrixTransport` per bot with the
/// bot's account from `transport.accounts`, its session kept in its own SQLite file next to
/// the host's storage (`matrix-<bot>.db`), invites accepted by the bot's `allow` list, and its
/// display name (and `mxc://` avatar) set from the bot file by `prepare()`.
///
///     let accounts = try MatrixBotAccounts(config: config, bots: catalog.bots, storagePath: path)
///     for (id, problem) in await accounts.prepare() { log(problem) }   // whoami, profile
///     for bot in accounts.bots { try host.add(compiled[bot.id], connection: bot.connection) }
public struct MatrixBotAccounts: Sendable {
    /// One bot's Matrix side.
    public struct Bot: Sendable {
        /// The bot's id (its file name or `id:`).
        public let id: String
        /// Its transport (already inside `connection`).
        public let transport: MatrixTransport
        /// What `BotHost.add` takes.
        public let connection: BotConnection
        /// Display name and avatar from the bot file.
        let name: String?
        let avatar: String?
    }

    /// The bots in catalog order.
    public let bots: [Bot]
    /// The homeserver they log in to.
    public let homeserver: URL
    private let log: @Sendable (String) -> Void

    /// Builds the transports (nothing is contacted yet).
    /// - Parameters:
    ///   - storagePath: the host's `storage.path`; account databases go into its folder
    ///     (`:memory:` puts them in a temporary folder, so a restart logs in again).
    ///   - storage: where each bot's client keeps its outbox and history.
    ///   - profileProvider: nil uses the homeserver's profiles (through the core SDK's cache).
    ///   - attachVCardFiles: also send each vCard card as a `text/vcard` file.
    /// - Throws: `ParleyError(.invalidArgument)` naming the config key that is missing or wrong.
    public init(config: HostConfig, bots: [LoadedBot], storagePath: String, storage: @Sendable (String) -> ChatStorage = { _ in .memory },
                profileProvider: (any ProfileProvider)? = nil, attachVCardFiles: Bool = false,
                log: @escaping @Sendable (String) -> Void = { line in FileHandle.standardError.write(Data("parley matrix: \(line)\n".utf8)) }) throws {
        let homeserver = try Self.homeserver(config)
        let folder = Self.accountFolder(storagePath: storagePath)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var built: [Bot] = []
        for bot in bots {
            var matrix = try Self.configuration(bot: bot.id, file: bot.file, config: config, homeserver: homeserver, folder: folder)
            matrix.invitePolicy = Self.invitePolicy(bot.definition.allow)
            matrix.attachVCardFile = attachVCardFiles
            matrix.log = { [id = bot.id] line in log("\(id): \(line)") }
            let client = try MatrixTransport(configuration: matrix)
            built.append(Bot(id: bot.id, transport: client,
                             connection: BotConnection(transport: client, storage: storage(bot.id), profileProvider: profileProvider),
                             name: bot.definition.name?.value, avatar: bot.definition.avatar?.value))
        }
        self.bots = built
        self.homeserver = homeserver
        self.log = log
    }

    /// The homeserver of a `transport: {kind: matrix}` config.
    /// - Throws: `ParleyError(.invalidArgument)` naming the key at fault.
    static func homeserver(_ config: HostConfig) throws -> URL {
        guard config.transportKind == .matrix, let transport = config.transport else {
            throw ParleyError(.invalidArgument, "the config's transport is not kind 'matrix'")
        }
        guard let text = transport.homeserver?.value, let homeserver = URL(string: text),
              homeserver.scheme == "http" || homeserver.scheme == "https"
        else {
            throw ParleyError(.invalidArgument, "transport.homeserver must be an http(s) URL",
                              context: ["field": "transport.homeserver", "value": transport.homeserver?.value ?? ""])
        }
        return homeserver
    }

    /// The transport settings of bot `bot`'s account (`transport.accounts.<bot>`), its session
    /// database in `folder`. `file` names the bot's file in errors.
    /// - Throws: `ParleyError(.invalidArgument)` naming the key at fault.
    static func configuration(bot: String, file: String, config: HostConfig, homeserver: URL, folder: String) throws -> MatrixConfiguration {
        guard let account = config.transport?.accounts?[bot] else {
            throw ParleyError(.invalidArgument, "bot '\(bot)' has no entry in transport.accounts",
                              context: ["field": "transport.accounts.\(bot)", "file": file])
        }
        let credentials: MatrixConfiguration.Credentials
        if let token = account.accessToken?.value, !token.isEmpty {
            credentials = .accessToken(token)
        } else if let password = account.password?.value, !password.isEmpty {
            credentials = .password(password)
        } else {
            throw ParleyError(.invalidArgument, "account '\(bot)' has an empty password and no access_token",
                              context: ["field": "transport.accounts.\(bot)", "line": String(account.mark.line)])
        }
        return MatrixConfiguration(homeserver: homeserver, userID: account.user.value, credentials: credentials,
                                   databasePath: folder + "/matrix-\(bot).db")
    }

    /// Logs every bot in (whoami for a token) and sets its display name and avatar. Returns a
    /// clear problem per bot that cannot start (bad token or password, server unreachable);
    /// a failed profile update is only logged.
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
        }
        return problems
    }

    /// The folder of the account databases for a `storage.path`.
    static func accountFolder(storagePath: String) -> String {
        if storagePath == ":memory:" {
            return FileManager.default.temporaryDirectory.appendingPathComponent("parley-matrix-\(ProcessInfo.processInfo.processIdentifier)").path
        }
        let folder = (storagePath as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
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
