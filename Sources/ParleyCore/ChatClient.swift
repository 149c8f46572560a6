import Foundation

/// The core SDK's client: one account's connection, send queue, history, conversations and
/// profiles, over any `Transport`.
///
/// Incoming messages are decoded through the content registry, duplicates (same message id)
/// dropped, visibility and the filter hook applied, then recorded and published to every
/// `events()` stream. Messages of this account itself (a transport's echo) are recorded in
/// history but not published: the sender already has them as `send`'s result. Every send goes through the durable `Outbox` and returns once the
/// transport accepted it.
public actor ChatClient {
    /// The account this client acts for.
    public nonisolated let userID: String
    /// The connection to the server.
    public nonisolated let transport: any Transport
    /// The settings it was made with.
    public nonisolated let configuration: ChatClientConfiguration
    /// Profiles (the configured provider, or the transport's) with a cache.
    public nonisolated let profiles: ProfileService
    /// The durable send queue.
    public nonisolated let outbox: Outbox
    let store: any MessageStore
    /// Memory storage keeps the conversation list only in `conversationList`.
    let persistsConversations: Bool
    /// False with `HistoryPolicy.ids`: messages go to neither history nor cache, and their
    /// ids to `recentIDs` (what drops repeats then).
    var keepsHistory: Bool { configuration.history == .kept }
    /// The ids of each channel's newest messages, when history is not kept.
    var recentIDs: RecentMessageIDs
    /// `sender.name` / `sender.avatar`: built once and shared (copy-on-write) by every
    /// message sent without extra extensions, instead of a dictionary per message.
    let senderExtensions: [String: JSONValue]

    /// The connection's life cycle (the tasks below are its I/O).
    var connection = ConnectionStateMachine()
    /// The reconnect loop while one runs.
    var reconnecting: Task<Void, Never>?
    var inbound: Task<Void, Never>?
    var subscribers: [Int: AsyncStream<ChatEvent>.Continuation] = [:]
    /// Subscribers that take events in batches (`eventBatches()`).
    var batchSubscribers: [BatchQueue<ChatEvent>] = []
    var nextSubscriber = 0
    /// The consumer the receiving task calls itself (`setEventHandler(_:)`), the events it
    /// has not had yet, and who delivers them.
    var eventHandler: EventHandler?
    var handlerEvents: [ChatEvent] = []
    var delivery = HandlerDelivery()
    /// Transport events the receiving task has handled (their chat events raised), those of
    /// them the handler has also had, and who waits for the latter (`waitUntilProcessed(_:)`).
    var handledEvents = 0
    var processedEvents = 0
    var processedWaiters = CountWaiters()
    var errorHandler: (@Sendable (ParleyError) -> Void)?
    var filter: (@Sendable (Message) -> FilterDecision)?

    var seen: RecentIDs
    /// Client message numbers (a system call per `UUID()` would cost more than the send).
    var ids = UUIDSequence()
    var cache: MessageCache
    var conversationList: ConversationList
    var pendingWrites: [Envelope] = []
    var flushScheduled = false
    /// While the event handler has a batch, history is not written: it is written once the
    /// handler returns. A consumer that keeps what it is given (a bot's inbox) then has it
    /// durable before the history records it as seen; the other way round a crash between
    /// the two would lose the message (after a restart the history calls it a repeat).
    var handlerRunning = false

    /// Opens the storage (a SQLite file is created and migrated) and prepares the outbox.
    /// Nothing is sent or received before `connect()`.
    public init(transport: any Transport, configuration: ChatClientConfiguration = ChatClientConfiguration()) throws {
        self.userID = transport.userID
        self.transport = transport
        self.configuration = configuration
        let outboxStore: any OutboxStore
        switch configuration.storage {
        case .memory:
            store = MemoryMessageStore(limitPerChannel: configuration.memoryHistoryLimit)
            outboxStore = VolatileOutboxStore()
            persistsConversations = false
        case .sqlite(let path):
            store = try DatabaseMessageStore(path: path)
            outboxStore = try DatabaseOutboxStore(path: path)
            persistsConversations = true
        case .outboxOnly(let path):
            store = MemoryMessageStore(limitPerChannel: configuration.memoryHistoryLimit)
            outboxStore = try DatabaseOutboxStore(path: path)
            persistsConversations = false
        }
        conversationList = ConversationList(try store.conversations(), tracksChanges: persistsConversations)
        outbox = Outbox(transport: transport, store: outboxStore, clock: configuration.clock, configuration: configuration.outbox)
        profiles = ProfileService(provider: configuration.profileProvider ?? TransportProfileProvider(transport: transport),
                                  clock: configuration.clock, expiry: configuration.profileExpiry,
                                  limit: configuration.profileLimit)
        senderExtensions = Self.extensions([:], sender: configuration.senderProfile)
        seen = RecentIDs(capacity: configuration.duplicateWindow)
        let keepsHistory = configuration.history == .kept
        recentIDs = RecentMessageIDs(limit: keepsHistory ? 1 : configuration.memoryHistoryLimit)
        // In memory the history already holds the recent messages: a decoded copy of each
        // would double what a client keeps (the store answers look-ups by id instead).
        cache = MessageCache(limits: persistsConversations && keepsHistory ? configuration.cacheLimits : MessageCache.Limits(count: 0))
    }

    // MARK: - Connection

    /// The connection state.
    public var connectionState: ConnectionState { connection.published }

    /// Connects, starts the outbox (sending what a previous run left queued) and starts
    /// receiving: catch-up first, then live events. From then on a dropped connection is
    /// reconnected by the client itself (`configuration.reconnect`) until `disconnect()`.
    public func connect() async throws {
        guard transition({ $0.connect() }) else { return }
        do {
            try await open()
        } catch {
            transition { $0.connectFailed() }
            throw error
        }
    }

    /// Opens the transport's stream, starts the outbox once, and starts the inbound task:
    /// the part of `connect()` a reconnect attempt repeats.
    func open() async throws {
        let stream: Inbound
        do {
            if let batched = transport as? any BatchedEventSource {
                stream = .pulled(try await batched.connectPulled())
            } else {
                stream = .single(try await transport.connect())
            }
            if !connection.outboxStarted {
                await outbox.setOrphanHandler { [weak self] item, result in
                    Task { await self?.recordRecovered(item, result) }
                }
                try await outbox.start()
                connection.outboxDidStart()
            }
        } catch {
            await transport.disconnect()
            throw ParleyError.wrapping(error, as: .networkUnavailable)
        }
        guard transition({ $0.opened() }) == .receive else {
            // `disconnect()` ran while the transport opened: the new stream is not wanted.
            await transport.disconnect()
            return
        }
        inbound = Task {
            switch stream {
            case .single(let events):
                for await event in events { await self.receiveBatch([event]) }
            case .pulled(let batches):
                // One actor turn per batch: the events of a batch are handled back to back.
                // Taken on this actor (a stream would produce them off it: a hop per batch).
                // Bounded by the transport: nil once its events end or this task is cancelled.
                while let batch = await batches.nextBatch() { await self.receiveBatch(batch) }
            }
            self.streamEnded()
            await self.deliverToHandler()
        }
    }

    /// Closes the event stream (and stops reconnecting). Queued sends stay queued (and keep
    /// being retried).
    public func disconnect() async {
        let wasOpen = transition { $0.disconnect() }
        reconnecting?.cancel()
        reconnecting = nil
        guard wasOpen else { return }
        await transport.disconnect()
        inbound?.cancel()
        await inbound?.value
        inbound = nil
        flushWrites()
    }

    /// Disconnects, stops the outbox (unsent items stay in the store for the next run),
    /// writes what is pending and finishes every event stream.
    public func close() async {
        await disconnect()
        await outbox.stop()
        connection.outboxDidStop()
        flushWrites()
        for continuation in subscribers.values { continuation.finish() }
        subscribers.removeAll()
        for queue in batchSubscribers { queue.finish() }
        batchSubscribers.removeAll()
        for waiter in processedWaiters.removeAll() { waiter.resume() }
    }

    func streamEnded() {
        let before = connection.published
        let action = connection.streamEnded(reconnects: configuration.reconnect != nil)
        guard action != .none else { return }
        // The drop is told first, then the reconnecting that follows it.
        if before != .disconnected { emit(.connectionState(.disconnected)) }
        if action == .reconnect { startReconnecting() }
    }

    /// Feeds an event to the connection's state machine and publishes the state it leads to.
    @discardableResult
    func transition<Action>(_ event: (inout ConnectionStateMachine) -> Action) -> Action {
        let before = connection.published
        let action = event(&connection)
        if connection.published != before { emit(.connectionState(connection.published)) }
        return action
    }

    // MARK: - Events and hooks

    /// A new stream of everything that happens from now on. Each call makes another
    /// subscriber; a stream ends when it is dropped or the client closes.
    public func events() -> AsyncStream<ChatEvent> {
        let id = nextSubscriber
        nextSubscriber += 1
        let (stream, continuation) = AsyncStream.makeStream(of: ChatEvent.self, bufferingPolicy: .unbounded)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeSubscriber(id) }
        }
        subscribers[id] = continuation
        return stream
    }

    /// Like `events()`, but each element holds every event that happened since the consumer
    /// last took one (in order, never empty): a consumer that handles a burst at once (a bot
    /// runtime) pays one wake-up per burst instead of one per event. Ends when the client
    /// closes or the consumer's task is cancelled.
    public func eventBatches() -> AsyncStream<[ChatEvent]> {
        let queue = BatchQueue<ChatEvent>()
        batchSubscribers.append(queue)
        return queue.stream()
    }

    func removeSubscriber(_ id: Int) { subscribers.removeValue(forKey: id) }

    func emit(_ event: ChatEvent) {
        if eventHandler != nil { queueForHandler(event) }
        for continuation in subscribers.values { continuation.yield(event) }
        guard !batchSubscribers.isEmpty else { return }
        var ended = false
        for queue in batchSubscribers where !queue.push(event) { ended = true }
        // A queue refuses only once finished (it has no limit): its consumer is gone.
        if ended { batchSubscribers.removeAll { $0.isFinished } }
    }

    /// Called with every background error (also published as `.error` events).
    public func setErrorHandler(_ handler: (@Sendable (ParleyError) -> Void)?) { errorHandler = handler }

    /// Runs on every incoming message before it is recorded and published.
    public func setMessageFilter(_ filter: (@Sendable (Message) -> FilterDecision)?) { self.filter = filter }

    func report(_ error: ParleyError) {
        errorHandler?(error)
        emit(.error(error))
    }
}
