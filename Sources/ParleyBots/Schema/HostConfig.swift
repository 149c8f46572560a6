import ParleyStore
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
    /// What the host refuses (the size of incoming messages).
    public var limits: LimitsConfig?
    /// The operations listener; absent: none.
    public var http: HTTPConfig?

    /// The bots folder as written (`bots` unless set).
    public var botsFolder: String { bots?.value ?? "bots" }
    /// The storage path as written (`storage.url` when set: the PostgreSQL database).
    public var storagePath: String { storage?.url?.value ?? storage?.path?.value ?? ".parley/parley.db" }
    /// `storage.lease` (5 s unless set or invalid, which validation reports).
    public var lease: Duration {
        guard let text = storage?.lease?.value, let value = try? DurationFormat.parse(text) else { return StorageConfig.defaultLease }
        return value
    }
    /// The largest incoming message handled, in bytes (`limits.message_size`, 64 KB unless set
    /// or invalid, which validation reports).
    public var maxMessageBytes: Int {
        guard let text = limits?.messageSize?.value, let bytes = try? ByteSize.parse(text) else { return Self.defaultMaxMessageBytes }
        return bytes
    }
    /// 64 KB.
    public static let defaultMaxMessageBytes = 64 * 1024
    /// How long old records are kept (`storage.retention`; 90 days unless set or invalid,
    /// which validation reports); nil: `forever`.
    public var retention: Duration? {
        guard let text = storage?.retention?.value else { return StorageConfig.defaultRetention }
        if text == StorageConfig.keepForever { return nil }
        return (try? DurationFormat.parse(text)) ?? StorageConfig.defaultRetention
    }
    /// `storage.durability` (`normal` unless set or invalid, which validation reports).
    public var durability: StoreDurability {
        storage?.durability.flatMap { StoreDurability(rawValue: $0.value) } ?? .normal
    }
    /// The transport kind as written (`local` unless set).
    public var transportKind: String {
        transport?.kind?.value ?? TransportConfig.defaultKind
    }
}
