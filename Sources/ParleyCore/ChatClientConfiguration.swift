import Foundation

/// Where a client keeps its outbox, history and conversation list.
public enum ChatStorage: Sendable, Hashable {
    /// In memory: fast, nothing survives the process.
    case memory
    /// A SQLite database file (WAL): queued sends survive a restart.
    case sqlite(path: String)
    /// Queued sends in a SQLite database file (they survive a restart); history and
    /// conversations in memory. For a transport that keeps its own record of what it
    /// delivered and never hands a message over twice, across restarts too (Matrix): a
    /// second history on disk would cost a commit per message and add nothing.
    case outboxOnly(path: String)

    /// Whether history and conversations are written to disk.
    public var keepsHistoryOnDisk: Bool {
        if case .sqlite = self { return true }
        return false
    }
}

/// Settings of a `ChatClient`.
public struct ChatClientConfiguration: Sendable {
    /// Decodes incoming payloads (register YAML cards here).
    public var registry: ContentRegistry
    /// Where the outbox, history and conversations live.
    public var storage: ChatStorage
    /// The time of everything that waits or stamps (a `ManualClock` in tests).
    public var clock: any ParleyClock
    /// Retries, rate limits and batch size of the send queue.
    public var outbox: Outbox.Configuration
    /// Where profiles come from; nil uses the transport's own (`Transport.profiles(of:)`).
    public var profileProvider: (any ProfileProvider)?
    /// How long a fetched profile is used before it is fetched again.
    public var profileExpiry: Duration
    /// How many recent messages, for how long, stay decoded in memory (with SQLite storage;
    /// with memory storage the history itself serves look-ups by id).
    public var cacheLimits: MessageCache.Limits
    /// What happens to group messages not meant for this account.
    public var hiddenMessages: HiddenMessagePolicy
    /// This account's name and avatar, carried in every sent message (`sender.name`,
    /// `sender.avatar`) so receivers can show them before they fetch the profile.
    public var senderProfile: Profile?
    /// How many recent message ids are remembered to drop duplicates.
    public var duplicateWindow: Int
    /// With memory storage: the newest messages kept per channel (older ones are dropped,
    /// so a long-running client does not grow without bound). Like the seeds' in-memory
    /// message cache, it is a recent window; a durable history needs SQLite storage. With
    /// `history: .ids` (any storage): the message ids kept per channel to drop repeats.
    public var memoryHistoryLimit: Int
    /// Whether sent and received messages are kept (history and cache) or only their ids
    /// (for duplicate dropping). Default: kept.
    public var history: HistoryPolicy
    /// How the client reconnects by itself when the server drops the connection: at once,
    /// then with this backoff, until connected, `maxAttempts` failed in a row, or
    /// `disconnect()`. Nil: the client stays disconnected and reconnecting is the owner's call.
    /// Its jitter comes from `outbox.random`, the client's one jitter source.
    public var reconnect: RetryPolicy?
    /// Profiles (and, apart, the previews messages carry) kept in memory at most.
    public var profileLimit = ProfileService.defaultLimit
    /// Conversations kept in memory at most (the least recently active beyond it are
    /// dropped from `conversations()`, with their recent ids; with SQLite storage they stay
    /// stored). Nil: all — an app's conversation list; a bot that meets many users sets it.
    public var conversationLimit: Int?

    /// The default reconnect backoff: 1 s doubling to 60 s, ±20 % jitter, no attempt limit.
    public static let defaultReconnect = RetryPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(60), maxAttempts: .max)

    /// Defaults: built-in contents, memory storage, the system clock, no rate limits.
    public init(registry: ContentRegistry = .standard, storage: ChatStorage = .memory, clock: any ParleyClock = SystemClock(),
                outbox: Outbox.Configuration = Outbox.Configuration(), profileProvider: (any ProfileProvider)? = nil,
                profileExpiry: Duration = .seconds(600), cacheLimits: MessageCache.Limits = MessageCache.Limits(),
                hiddenMessages: HiddenMessagePolicy = .drop, senderProfile: Profile? = nil, duplicateWindow: Int = 100_000,
                memoryHistoryLimit: Int = 100, reconnect: RetryPolicy? = ChatClientConfiguration.defaultReconnect,
                history: HistoryPolicy = .kept) {
        self.registry = registry
        self.storage = storage
        self.clock = clock
        self.outbox = outbox
        self.profileProvider = profileProvider
        self.profileExpiry = profileExpiry
        self.cacheLimits = cacheLimits
        self.hiddenMessages = hiddenMessages
        self.senderProfile = senderProfile
        self.duplicateWindow = max(1, duplicateWindow)
        self.memoryHistoryLimit = max(1, memoryHistoryLimit)
        self.reconnect = reconnect
        self.history = history
    }
}

/// Per-send options.
public struct SendOptions: Sendable, Hashable {
    /// Interactive answers go before normal sends, broadcasts last.
    public var priority: SendPriority
    /// Header flags (`noPersist`, `redDot`, `syncOnce`).
    public var flags: MessageFlags
    /// For group messages: only these members may see it.
    public var visibleTo: [String]?
    /// Extra extension fields (`sender.*` are set by the client).
    public var extensions: [String: JSONValue]
    /// The client message number of the one message sent (nil: a fresh one). A caller that
    /// may repeat a send after a crash names it, so the server recognises the repeat instead
    /// of showing it twice. `batchSend` refuses it (it would name many messages alike).
    public var clientMessageID: UUID?

    /// Options with normal priority and no flags by default.
    public init(priority: SendPriority = .normal, flags: MessageFlags = [], visibleTo: [String]? = nil,
                extensions: [String: JSONValue] = [:], clientMessageID: UUID? = nil) {
        self.priority = priority
        self.flags = flags
        self.visibleTo = visibleTo
        self.extensions = extensions
        self.clientMessageID = clientMessageID
    }

    /// Options for interactive answers (replies, command responses): sent before broadcasts.
    public static let interactive = SendOptions(priority: .interactive)
    /// Options for broadcast traffic: sent after everything else.
    public static let broadcast = SendOptions(priority: .broadcast)
}
