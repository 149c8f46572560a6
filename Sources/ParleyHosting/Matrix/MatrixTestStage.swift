import Foundation
import ParleyCore
import ParleyFlowTest
import ParleyMatrix
import ParleyMatrixCrypto
import ParleyCrypto

/// Runs flow tests against a live Matrix homeserver (`parley test` with a `kind: matrix`
/// config). Each test gets fresh accounts, registered with the server's shared secret: the
/// test user and the bot as `<id>-<tag>` (so tests run in parallel without hearing each other),
/// a direct room created by the user's first message and one room per group the test names.
/// Both sides see the test file's short ids through a `RenamingTransport`; the bot's profile
/// queries are answered from the test's `profiles`.
///
/// Idle stays exact without sleeping: the bot's connection counts every event it relays, and
/// each message the people sent stays owed, by its event id, until the bot's connection has
/// relayed it (`MatrixIdleCounters`), so the engine waits until the server has delivered each
/// of them to the bot. A `restart` step gives the bot a new connection on its account and
/// database, which goes on from the stored sync position.
public struct MatrixTestStage: TestStage {
    /// The homeserver base URL.
    public let homeserver: URL
    /// Where the test's accounts come from.
    public enum Accounts: Sendable {
        /// Fresh accounts per test, registered with the server's shared secret.
        case registered(MatrixRegistrar)
        /// The config's accounts by test id (`transport.accounts`): a server whose secret you
        /// do not have. Tests share them, so they run one at a time.
        case configured([String: ConfiguredAccount])
    }

    /// An account of the config: its user id and a password or access token.
    public struct ConfiguredAccount: Sendable {
        /// The full user id.
        public var userID: String
        /// How it logs in.
        public var credentials: MatrixConfiguration.Credentials

        /// An account.
        public init(userID: String, credentials: MatrixConfiguration.Credentials) {
            self.userID = userID
            self.credentials = credentials
        }
    }

    let accounts: Accounts
    /// Config accounts logged in so far: one login each for the whole run (a server limits
    /// logins, and every login is a new device).
    let logins = ConfiguredLogins()
    /// Where each test's account databases go (a fresh folder per test, removed after it).
    let directory: URL
    /// A bot Parley does not host (`--target @bot:server`); nil runs the bot of the test file.
    public let target: String?
    /// With a `target`: how long the bot must stay silent after answering to count as done.
    public let quietPeriod: Duration
    /// With a `target`: how long to wait for any answer to the user's last message.
    public let patience: Duration
    /// The config's `transport.encryption.mode`: with any but `off`, every test account has an
    /// encrypting device (its crypto store beside its database, under a key made for this
    /// stage), and the test's groups are created encrypted under `default` and `require`, so
    /// flow tests run in encrypted rooms as the bot would be met there.
    public var encryptionMode = MatrixEncryptionMode.off
    /// The throw-away pickle key of the test accounts' crypto stores.
    let pickleKey = UUID().uuidString + UUID().uuidString

    /// A stage on `homeserver`, registering accounts with `sharedSecret`; with `target`, the
    /// tests talk to that account instead of a bot started here (use `MatrixTargetBotHost`).
    public init(homeserver: URL, sharedSecret: String, target: String? = nil, quietPeriod: Duration = .seconds(3),
                patience: Duration = .seconds(15),
                directory: URL = FileManager.default.temporaryDirectory.appendingPathComponent("parley-matrix-tests")) {
        self.homeserver = homeserver
        accounts = .registered(MatrixRegistrar(homeserver: homeserver, sharedSecret: sharedSecret))
        self.target = target
        self.quietPeriod = quietPeriod
        self.patience = patience
        self.directory = directory
    }

    /// A stage on `homeserver` whose test users log in with the config's `accounts` (no
    /// registration); with `target`, the tests talk to that account.
    public init(homeserver: URL, accounts: [String: ConfiguredAccount], target: String? = nil, quietPeriod: Duration = .seconds(3),
                patience: Duration = .seconds(15),
                directory: URL = FileManager.default.temporaryDirectory.appendingPathComponent("parley-matrix-tests")) {
        self.homeserver = homeserver
        self.accounts = .configured(accounts)
        self.target = target
        self.quietPeriod = quietPeriod
        self.patience = patience
        self.directory = directory
    }

    public var supportsVirtualTime: Bool { false }

    /// The bot hosted here reconnects on its account; an outside bot (`target`) cannot be
    /// restarted from here.
    public var supportsRestart: Bool { target == nil }

    public var maximumJobs: Int? {
        if case .configured = accounts { return 1 }
        return nil
    }

    /// Registering two accounts (bcrypt) and a dozen HTTP round trips on a busy machine.
    public var minimumWallClock: Duration? { .seconds(120) }

    public func open(_ run: TestRun) async throws -> any StageSession {
        let tag = String(UUID().uuidString.lowercased().filter(\.isHexDigit).prefix(10))
        // The stores create it, owner-only, as they open the accounts' databases in it.
        let folder = directory.appendingPathComponent(tag)
        // Admins, only to lift their own message rate limits: Synapse's default (0.2/s, burst 10)
        // answers a longer test's replies with 429, and the outbox's retry waits on the test's
        // virtual clock, which does not move on a live server.
        let user = try await account(run.userID, tag: tag)
        if let target { return try await openTarget(target, run: run, user: user, folder: folder) }
        let bot = run.bot.id == run.userID ? user : try await account(run.bot.id, tag: tag)
        // Everyone else who speaks (`as:`) is a real account too: an agent in a queue's room.
        var speakers: [String: MatrixRegistrar.Account] = [:]
        for speaker in run.cast.speakers where speaker != run.userID && speaker != run.bot.id {
            speakers[speaker] = try await account(speaker, tag: tag)
        }
        let userTransport = try transport(user, database: folder.appendingPathComponent("user.db").path) { _ in false }
        try await showProfile(of: run, on: userTransport)
        var groups: [String: String] = [:]
        var everyone = speakers
        everyone[run.userID] = user
        everyone[run.bot.id] = bot
        for group in run.cast.groups {
            let invited = (run.cast.members[group] ?? []).compactMap { everyone[$0]?.userID }.filter { $0 != user.userID }
            let room = try await MatrixClient(homeserver: homeserver, accessToken: user.accessToken).createRoom([
                "preset": "private_chat", "name": .string(group), "invite": .array(Set(invited + [bot.userID]).sorted().map { .string($0) }),
                "initial_state": .array(groupInitialState),
            ])
            // As in the hub, the test's groups exist with their members before the bot starts:
            // joined now, the bot's first sync takes the joins as history, not as live `joined`
            // events (which would run its group greeting). A failed join fails the test here,
            // naming the member, rather than later as an unexpected greeting.
            for member in (run.cast.members[group] ?? []) + [run.bot.id] {
                guard let account = everyone[member], account.userID != user.userID else { continue }
                do {
                    _ = try await MatrixClient(homeserver: homeserver, accessToken: account.accessToken).join(room)
                } catch {
                    throw ParleyError(.networkUnavailable, "\(member) could not join the test's group '\(group)' (\(room)): \(error)")
                }
            }
            groups[group] = room
        }
        var users = [run.userID: user.userID, run.bot.id: bot.userID]
        for (speaker, account) in speakers { users[speaker] = account.userID }
        let names = RenamingTransport.Names(users: users, groups: groups)
        let counters = MatrixIdleCounters()
        let people = Set([run.userID] + Array(speakers.keys))
        let invitedBy = Set([user.userID] + speakers.values.map(\.userID))
        let botDatabase = folder.appendingPathComponent("bot.db").path
        // Every event relayed to the bot counts; people's messages and reactions are also
        // matched against what they sent (below), so idle waits for each.
        let connectBot: Session.BotConnector = { [self] in
            let matrix = try transport(bot, database: botDatabase) { invitedBy.contains($0.inviter) }
            let connection = counters.newConnection()
            let renamed = RenamingTransport(base: matrix, names: names, profiles: run.cast.users) { event in
                switch event {
                case .message(let envelope) where people.contains(envelope.sender):
                    counters.relayed(on: connection, personMessage: envelope.id)
                case .reaction(let reaction) where reaction.added && people.contains(reaction.user):
                    counters.relayed(on: connection, personReaction: true)
                default:
                    counters.relayed(on: connection)
                }
            }
            return (renamed, matrix)
        }
        let countingSends: @Sendable (any Transport) -> any Transport = { base in
            MatrixSendCountingTransport(base: RenamingTransport(base: base, names: names)) { accepted in
                switch accepted {
                case .message(let id): counters.sent(messageID: id)
                case .reaction: counters.sentReaction()
                }
            }
        }
        return Session(stage: self, folder: folder, counters: counters, speakerAccounts: speakers, connectBot: connectBot,
                       bot: try connectBot(), userSide: countingSends(userTransport), countingSends: countingSends,
                       userMatrix: userTransport)
    }

    /// The account of the test's id `id`: a fresh one allowed to send as fast as it likes, or
    /// the config's (logged in with its password, or its token checked).
    private func account(_ id: String, tag: String) async throws -> MatrixRegistrar.Account {
        switch accounts {
        case .registered(let registrar):
            let account = try await registrar.register(Self.localpart(id, tag: tag), password: "pw-" + tag, admin: true)
            try await registrar.overrideRateLimit(of: account.userID, adminToken: account.accessToken)
            return account
        case .configured(let configured):
            guard let account = configured[id] else {
                throw ParleyError(.invalidArgument, "no account for the test's user '\(id)': add '\(id)' to transport.accounts "
                                  + "(or set PARLEY_MATRIX_SHARED_SECRET to register test users)")
            }
            return try await logins.account(account, homeserver: homeserver)
        }
    }

    /// Gives the test user the display name (and `mxc://` avatar) its profile in the test
    /// declares, so any bot, hosted or not, greets them by that name.
    func showProfile(of run: TestRun, on transport: MatrixTransport) async throws {
        guard let profile = run.cast.users.first(where: { $0.id == run.userID }), profile.name != nil else { return }
        try await transport.setOwnProfile(name: profile.name, avatar: profile.avatar.flatMap { $0.hasPrefix("mxc://") ? $0 : nil })
    }

    func transport(_ account: MatrixRegistrar.Account, database: String,
                           invitePolicy: @escaping @Sendable (MatrixConfiguration.Invite) -> Bool) throws -> MatrixTransport {
        var config = MatrixConfiguration(homeserver: homeserver, userID: account.userID,
                                         credentials: .accessToken(account.accessToken), databasePath: database)
        config.invitePolicy = invitePolicy
        config.reconnectBackoff = (.milliseconds(100), .seconds(2))
        if encryptionMode.servesEncrypted {
            config.encryptionMode = encryptionMode
            config.encryption = MatrixE2EE(store: try MatrixCryptoStore(path: database + ".crypto", pickleKey: PickleKey(pickleKey)))
        }
        return try MatrixTransport(configuration: config)
    }

    /// The initial state of the groups a test creates: encrypted when new rooms are.
    var groupInitialState: [JSONValue] {
        guard encryptionMode == .default || encryptionMode == .require else { return [] }
        return [["type": "m.room.encryption", "state_key": "", "content": ["algorithm": "m.megolm.v1.aes-sha2"]]]
    }

    /// A Matrix localpart for a test id: lower case, characters Matrix allows, plus the tag.
    static func localpart(_ id: String, tag: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789._=")
        let cleaned = String(id.lowercased().map { allowed.contains($0) ? $0 : "_" }.prefix(40))
        return (cleaned.isEmpty ? "user" : cleaned) + "-" + tag
    }
}
