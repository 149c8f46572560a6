import ParleyCore

/// How one bot reaches its users: its transport, the client's storage and profiles, and —
/// for an embedded server that can say it — how many events the server handed the transport
/// (`HubTransport.deliveredEventCount`), which makes `BotHost.waitUntilIdle()` exact.
public struct BotConnection: Sendable {
    /// The bot's account on the server.
    public var transport: any Transport
    /// Events the server has delivered to `transport` so far; nil when unknown.
    public var deliveredEventCount: (@Sendable () -> Int)?
    /// Where the bot's client keeps its outbox and history.
    public var storage: ChatStorage
    /// Where profiles come from (nil: the transport).
    public var profileProvider: (any ProfileProvider)?
    /// How long a fetched profile is used before it is fetched again (`profiles.expire`);
    /// nil: the client's default (`ChatClientConfiguration.profileExpiry`).
    public var profileExpiry: Duration?

    /// Creates a connection description.
    public init(transport: any Transport, deliveredEventCount: (@Sendable () -> Int)? = nil,
                storage: ChatStorage = .memory, profileProvider: (any ProfileProvider)? = nil,
                profileExpiry: Duration? = nil) {
        self.transport = transport
        self.deliveredEventCount = deliveredEventCount
        self.storage = storage
        self.profileProvider = profileProvider
        self.profileExpiry = profileExpiry
    }
}

/// Settings of a `BotHost`.
public struct BotHostOptions: Sendable {
    /// Messages whose text is longer (UTF-8 bytes) are refused with a log line.
    public var maxMessageBytes: Int
    /// How many recent lines of a conversation a hand-off ticket shows.
    public var ticketHistory: Int
    /// How long `stop()` waits for work in flight before closing the clients.
    public var stopGrace: Duration
    /// Durable broadcasts: `broadcast:` actions become stored jobs, unfinished jobs resume at
    /// start. Nil: actions send directly through the client and schedules do not run.
    public var broadcasts: BroadcastService?
    /// Where the cron scheduler keeps each schedule's last fire (needs `broadcasts`).
    public var schedules: SchedulerStore?
    /// Messages a bot holds received and not yet handled before it stops taking more from
    /// the server (until half are handled): a flood waits in the server's bounded queue
    /// instead of in this process's memory.
    public var backlogLimit: Int
    /// Conversations a bot keeps in memory (their cached state, the recent lines for a
    /// ticket, whether they were greeted); the least recently used idle ones beyond it are
    /// dropped, and read from the store again when they next have work.
    public var conversationLimit: Int
    /// Told what the bots do (the host's health and metrics); nil: nobody listens.
    public var activity: (any BotActivityObserver)?

    /// Creates options; the defaults suit chat traffic.
    public init(maxMessageBytes: Int = HostConfig.defaultMaxMessageBytes, ticketHistory: Int = 5, stopGrace: Duration = .seconds(5),
                broadcasts: BroadcastService? = nil, schedules: SchedulerStore? = nil, backlogLimit: Int = 512,
                conversationLimit: Int = 10_000, activity: (any BotActivityObserver)? = nil) {
        self.activity = activity
        self.maxMessageBytes = maxMessageBytes
        self.ticketHistory = max(0, ticketHistory)
        self.stopGrace = stopGrace
        self.broadcasts = broadcasts
        self.schedules = schedules
        self.backlogLimit = max(1, backlogLimit)
        self.conversationLimit = max(1, conversationLimit)
    }
}
