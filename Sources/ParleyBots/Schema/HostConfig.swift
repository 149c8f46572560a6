import YAMLCoding
/// `config.yaml`: the host — transport, storage, where bots and profiles are, logging and
/// the global broadcast cap. Every section is optional and has a documented default.
public struct HostConfig: Decodable, Sendable {
    /// How bots reach users; default: the embedded hub (`kind: local`).
    public var transport: TransportConfig?
    /// Where state is kept; default `.parley/parley.db`.
    public var storage: StorageConfig?
    /// Folder of bot files, relative to the config file; default `bots`.
    public var bots: Located<String>?
    /// Where user profiles come from; default: the transport.
    public var profiles: ProfilesConfig?
    /// Logging.
    public var log: LogConfig?
    /// Host-wide broadcast limits.
    public var broadcasts: BroadcastLimits?

    /// The bots folder as written (`bots` unless set).
    public var botsFolder: String { bots?.value ?? "bots" }
    /// The storage path as written.
    public var storagePath: String { storage?.path.value ?? ".parley/parley.db" }
    /// The transport kind (`local` unless set or invalid).
    public var transportKind: TransportConfig.Kind {
        transport?.kind.flatMap { TransportConfig.Kind(rawValue: $0.value) } ?? .local
    }
}

/// `transport:`.
public struct TransportConfig: Decodable, Sendable {
    /// The transport kinds.
    public enum Kind: String, Sendable, CaseIterable { case local, matrix }
    /// `local` or `matrix`.
    public var kind: Located<String>?
    /// Matrix homeserver base URL (required for `matrix`).
    public var homeserver: Located<String>?
    /// Bot id → credentials (for `matrix`).
    public var accounts: OrderedMap<AccountConfig>?
}

/// One bot's login on a homeserver: a password or an access token.
public struct AccountConfig: Decodable, Sendable {
    /// Full user id (`@support:localhost`).
    public var user: Located<String>
    /// Password (use `${VAR}`).
    public var password: Located<String>?
    /// Access token (use `${VAR}`).
    public var accessToken: Located<String>?
    /// Device id to reuse.
    public var deviceID: Located<String>?
    /// Where the account's mapping starts.
    public var mark: Mark

    enum CodingKeys: String, CodingKey {
        case user, password, accessToken = "access_token", deviceID = "device_id"
    }

    public init(from decoder: any Decoder) throws {
        mark = decoder.yamlMark ?? Mark(line: 0, column: 0)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        user = try container.decode(Located<String>.self, forKey: .user)
        password = try container.decodeIfPresent(Located<String>.self, forKey: .password)
        accessToken = try container.decodeIfPresent(Located<String>.self, forKey: .accessToken)
        deviceID = try container.decodeIfPresent(Located<String>.self, forKey: .deviceID)
    }
}

/// `storage:`.
public struct StorageConfig: Decodable, Sendable {
    /// SQLite file path (relative to the working directory), or `:memory:`.
    public var path: Located<String>
}

/// `profiles:` — a YAML directory file or an HTTP endpoint, and the cache lifetime.
public struct ProfilesConfig: Decodable, Sendable {
    /// A YAML map id → profile, relative to the config file.
    public var directory: Located<String>?
    /// HTTP endpoint with `{ids}`.
    public var url: Located<String>?
    /// Cache lifetime (`10m`).
    public var expire: Located<String>?
    /// Where the section starts.
    public var mark: Mark

    enum CodingKeys: String, CodingKey { case directory, url, expire }

    public init(from decoder: any Decoder) throws {
        mark = decoder.yamlMark ?? Mark(line: 0, column: 0)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        directory = try container.decodeIfPresent(Located<String>.self, forKey: .directory)
        url = try container.decodeIfPresent(Located<String>.self, forKey: .url)
        expire = try container.decodeIfPresent(Located<String>.self, forKey: .expire)
    }
}

/// `log:`.
public struct LogConfig: Decodable, Sendable {
    /// Log levels.
    public enum Level: String, Sendable, CaseIterable { case debug, info, warn, error }
    /// Output formats.
    public enum Format: String, Sendable, CaseIterable { case text, json }
    /// `debug`, `info` (default), `warn` or `error`.
    public var level: Located<String>?
    /// `text` (default) or `json`.
    public var format: Located<String>?
}

/// `broadcasts:` — the host-wide cap shared by all broadcasts.
public struct BroadcastLimits: Decodable, Sendable {
    /// Rate such as `100/s`.
    public var rate: Located<String>?
}

/// `profiles.yaml`: user id → profile fields.
public struct ProfileEntry: Decodable, Sendable {
    public var name: String?
    public var avatar: String?
    public var phone: String?
    public var email: String?
    public var org: String?
    public var title: String?
}
