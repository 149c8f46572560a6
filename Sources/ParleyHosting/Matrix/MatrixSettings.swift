import ParleyBots
import ParleyMatrix
import YAMLCoding

/// `transport:` of `kind: matrix`: the homeserver, each bot's account, and the names the bots
/// use mapped to rooms and users, so the same bot files run here and on the embedded hub.
struct MatrixSettings: Decodable, Sendable {
    /// `matrix`.
    var kind: Located<String>?
    /// The homeserver base URL.
    var homeserver: Located<String>?
    /// Bot id → credentials.
    var accounts: OrderedMap<MatrixAccountSettings>?
    /// `group:NAME` and hand-off queue names → a room id (`!id:server`) or alias (`#name:server`).
    var rooms: OrderedMap<Located<String>>?
    /// `user:NAME` → a Matrix id; unmapped names are `@NAME` on the bot account's server.
    var users: OrderedMap<Located<String>>?
    /// A `vcard` card is followed by its `.vcf` file (default true: Element users can keep it).
    var vcardFiles: Located<Bool>?
    /// Permits `http://` to a homeserver that is not on loopback (default false): the password
    /// and every token would cross the network in clear.
    var allowInsecure: Located<Bool>?
    /// The most rooms each account is in; further invites are declined (default 10000).
    var maxRooms: Located<Int>?
    /// End-to-end encryption (default: off, encrypted rooms refused).
    var encryption: MatrixEncryptionSettings?

    enum CodingKeys: String, CodingKey {
        case kind, homeserver, accounts, rooms, users, vcardFiles = "vcard_files", allowInsecure = "allow_insecure"
        case maxRooms = "max_rooms", encryption
    }

    /// How account `name` logs in: its access token, else its password; nil when both are
    /// empty (a `${VAR}` that was set to nothing).
    func credentials(of name: String) -> MatrixConfiguration.Credentials? {
        guard let account = accounts?[name] else { return nil }
        if let token = account.accessToken?.value, !token.isEmpty { return .accessToken(token) }
        if let password = account.password?.value, !password.isEmpty { return .password(password) }
        return nil
    }

    /// Whether vCard cards carry their file.
    var attachesVCardFiles: Bool { vcardFiles?.value ?? true }

    /// Whether plain http to a host off this machine is permitted.
    var allowsInsecure: Bool { allowInsecure?.value ?? false }
}

/// One bot's login on a homeserver: a password or an access token.
struct MatrixAccountSettings: Decodable, Sendable {
    /// Full user id (`@support:localhost`).
    var user: Located<String>
    /// Password (use `${VAR}`).
    var password: Located<String>?
    /// Access token (use `${VAR}`).
    var accessToken: Located<String>?
    /// Device id to reuse.
    var deviceID: Located<String>?
    /// Where the account's mapping starts.
    var mark: Mark

    enum CodingKeys: String, CodingKey {
        case user, password, accessToken = "access_token", deviceID = "device_id"
    }

    init(from decoder: any Decoder) throws {
        mark = decoder.yamlMark ?? Mark(line: 0, column: 0)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        user = try container.decode(Located<String>.self, forKey: .user)
        password = try container.decodeIfPresent(Located<String>.self, forKey: .password)
        accessToken = try container.decodeIfPresent(Located<String>.self, forKey: .accessToken)
        deviceID = try container.decodeIfPresent(Located<String>.self, forKey: .deviceID)
    }
}

extension MatrixSettings {
    /// The names a bot logged in as `account` uses, as this homeserver knows them: every bot's
    /// id is its account, `users` as written, other short user names on the account's own
    /// server, rooms as `joined` (name → room id) or else as written (an alias still sends).
    func names(forAccount account: String, joined: [String: String] = [:]) -> RenamingTransport.Names {
        var users: [String: String] = [:]
        for entry in self.users?.entries ?? [] { users[entry.name] = entry.value.value }
        for entry in accounts?.entries ?? [] { users[entry.name] = entry.value.user.value }
        var groups: [String: String] = [:]
        for entry in rooms?.entries ?? [] { groups[entry.name] = joined[entry.name] ?? entry.value.value }
        let server = account.split(separator: ":", maxSplits: 1).last.map(String.init)
        return RenamingTransport.Names(users: users, groups: groups, defaultServer: server)
    }
}

/// `transport.encryption`: how encrypted rooms are treated and the key the crypto store is
/// encrypted with.
struct MatrixEncryptionSettings: Decodable, Sendable {
    /// `off`, `allow`, `default` or `require` (default `off`).
    var mode: Located<String>?
    /// The secret the device's keys are pickled (encrypted) with in the store (use `${VAR}`).
    var pickleKey: Located<String>?
    /// Where the section starts.
    var mark: Mark

    enum CodingKeys: String, CodingKey {
        case mode, pickleKey = "pickle_key"
    }

    init(from decoder: any Decoder) throws {
        mark = decoder.yamlMark ?? Mark(line: 0, column: 0)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        mode = try container.decodeIfPresent(Located<String>.self, forKey: .mode)
        pickleKey = try container.decodeIfPresent(Located<String>.self, forKey: .pickleKey)
    }

    /// The mode, or nil when it is not one of the four.
    var parsedMode: MatrixEncryptionMode? { mode.map { MatrixEncryptionMode(rawValue: $0.value) } ?? .off }

    /// The shortest pickle key accepted: 128 bits of base64 or hex are 22 or 32 characters.
    static let minimumKeyLength = 16
}
