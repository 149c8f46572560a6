import Foundation
import ParleyCore

/// One running bot: its client, its conversations' queues and state. Messages of one
/// conversation are handled strictly in order (one drain task per conversation at a time);
/// different conversations run concurrently, interleaving at their sends.
actor BotRuntime {
    /// The bot's id, which a reload never changes (a renamed bot is another bot).
    nonisolated let id: String
    /// What the bot does; a reload swaps it between two items of a conversation (`replace`).
    private(set) var bot: CompiledBot
    let client: ChatClient
    let transport: ObservedTransport
    let store: any BotStore
    let timer: DeadlineTimer
    let tracker: IdleTracker
    let logger: BotLogger
    let options: BotHostOptions
    let clock: any ParleyClock

    var lanes: [Channel: Lane] = [:]
    /// Items queued so far: the lanes' use stamps.
    var queuedSoFar = 0
    /// Users and groups known to be greeted already (saves a store round trip per message);
    /// the most recent `options.conversationLimit`, the store answers for the others.
    var greeted: RecentIDs
    /// When `greeted` was last emptied.
    var greetedSince = Date.distantPast
    /// Where the runtime is in its life (see `BotPhase`).
    var phase = BotPhase.created
    /// Items queued in the lanes and not yet handled, and the receiving task waiting for
    /// them to drop (see `dispatch(_:)`).
    var backlog = 0
    var backlogWaiter: CheckedContinuation<Void, Never>?
    /// Waits for the lanes to empty (a bot leaving at a reload: `waitUntilQuiet`).
    var quietWaiters: [CheckedContinuation<Void, Never>] = []
    /// The other bots of the host: their messages are never answered, so two bots in one
    /// group cannot keep answering each other.
    var peers: Set<String> = []
    /// Ids of those messages, until handled: the server delivering one again is ignored.
    var replaying: Set<String> = []
    /// Whether received messages are kept in the store until handled (`BotRuntime+Inbox`).
    let keepsInbox: Bool
    /// The client's connection, as last reported (see `BotLink`).
    var link = BotLink.steady(.disconnected)
    /// Decoded messages the bot's client keeps by id with SQLite storage (in memory it keeps
    /// none): the runtime hands each handler its trigger message itself, so the cache serves
    /// only reaction events.
    static let cacheLimits = MessageCache.Limits(count: 64)

    // The runtime keeps an executor of its own. Sharing its client's would save the executor
    // switch between the receiving task, `dispatch` and `send`, yet handles messages no
    // faster and holds more memory at peak.

    init(bot: CompiledBot, connection: BotConnection, store: any BotStore, timer: DeadlineTimer, tracker: IdleTracker,
         logger: BotLogger, options: BotHostOptions, clock: any ParleyClock) throws {
        self.bot = bot
        id = bot.id
        self.store = store
        self.timer = timer
        self.tracker = tracker
        self.logger = logger
        self.options = options
        self.clock = clock
        keepsInbox = store.isPersistent
        greeted = RecentIDs(capacity: options.conversationLimit)
        transport = ObservedTransport(connection.transport, deliveredEventCount: connection.deliveredEventCount)
        var configuration = ChatClientConfiguration(
            registry: bot.registry, storage: connection.storage, clock: clock, profileProvider: connection.profileProvider,
            cacheLimits: Self.cacheLimits, senderProfile: bot.profile(as: connection.transport.userID),
            // The runtime never reads its client's history (hand-off tickets keep their own
            // lines, `remember`): where it would not outlive the process anyway, only ids are
            // kept, for dropping repeats. A SQLite history stays complete: after a restart it
            // is what tells a repeat from the hub apart.
            history: connection.storage.keepsHistoryOnDisk ? .kept : .ids)
        // The runtime sends in answer to what its receiving task hands it, so that task
        // paces it; a yield would send the rest of the handler through the global queue.
        configuration.outbox.submitsBetweenYields = 0
        if let activity = options.activity {
            let id = bot.id
            configuration.outbox.attemptFailed = { error in
                if error.code == .rateLimited { activity.rateLimited(bot: id) }
            }
        }
        if let expiry = connection.profileExpiry { configuration.profileExpiry = expiry }
        // A bot meets users without end: it keeps as many conversations and profiles at hand
        // as it keeps conversations of its own.
        configuration.conversationLimit = options.conversationLimit
        configuration.profileLimit = options.conversationLimit
        client = try ChatClient(transport: transport, configuration: configuration)
    }

    /// Fields and the time are only built when the level lets the line through: the
    /// per-message `handled` line would otherwise cost a dictionary and a clock read each.
    func log(_ level: LogLevel, _ event: String, _ fields: @autoclosure () -> [String: String] = [:]) {
        guard level >= logger.level else { return }
        logger.log(level, at: clock.now(), bot: bot.id, event, fields())
    }

    // MARK: - Life cycle

    /// Subscribes, connects, queues the messages a previous run received and did not finish
    /// handling (ahead of anything delivered now), and re-arms the `ask` timeouts and delayed
    /// plans it left.
    func start(peers: Set<String>) async throws {
        setPeers(peers)
        // The client's receiving task brings each batch over itself: no task of this actor
        // to wake per batch.
        await client.setEventHandler(EventForwarder(self).forward)
        let unhandled = loadUnhandled()
        precondition(phase == .created, "a bot runtime is started once")
        phase = .starting(held: [])
        do {
            try await client.connect()
        } catch {
            endHold(dropping: true)
            replaying = []
            throw error
        }
        // Told here, not only by the client's event (which comes later, from its receiving task):
        // a host that started is one whose health says so.
        options.activity?.connection(bot: bot.id, await client.connectionState)
        queueFirst(unhandled)
        endHold()
        for (target, state) in try store.statesWithTimers(bot: bot.id) {
            guard let channel = Channel(target: target) else { continue }
            if let position = state.waiting, let deadline = state.deadline { armTimeout(position, deadline, in: channel) }
            for plan in state.delayed { armDelayed(plan, in: channel) }
        }
        armOpenTickets()
    }

    /// Stops taking new work and closes the client (queued sends stay in its outbox).
    func stop() async {
        enterStopping()
        releaseBacklogWaiter()
        releaseQuietWaiters()
        await client.close()
        await client.setEventHandler(nil)
    }

    // MARK: - Inbound

    /// Dispatches a batch; while more items wait in the lanes than `options.backlogLimit`, the
    /// client's receiving task waits here, so a flood stays in the server's bounded queue
    /// instead of piling up decoded in memory.
    func dispatch(_ batch: [ChatEvent]) async {
        let reactions = takenReactions(batch)
        await receive(batch, reactions: reactions)
        for (index, event) in batch.enumerated() {
            if case .reaction = event {
                guard let reaction = reactions[index] else { continue }
                accept(.reaction(reaction), in: reaction.channel)
            } else {
                dispatch(event)
            }
        }
        guard backlog > options.backlogLimit, !isStopping else { return }
        await withCheckedContinuation { backlogWaiter = $0 }
    }

    private func releaseBacklogWaiter() {
        backlogWaiter?.resume()
        backlogWaiter = nil
    }

    func dispatch(_ event: ChatEvent) {
        switch event {
        case .message(let message):
            guard takes(message) else {
                if peers.contains(message.sender) {
                    log(.debug, "ignored: from another bot", ["channel": message.channel.target, "user": message.sender])
                }
                return
            }
            options.activity?.received(bot: bot.id)
            accept(.message(message), in: message.channel)
        case .membership(let membership):
            if membership.user == client.userID, membership.change == .joined, membership.channel.kind == .group {
                accept(.joined, in: membership.channel)
            }
        case .error(let error):
            if !reconnectFailed(error) { log(.warn, "inbound error", ["error": error.description]) }
        case .connectionState(let state):
            log(.debug, "connection", ["state": state.rawValue])
            options.activity?.connection(bot: bot.id, state)
            connectionChanged(state)
        case .reaction:
            // Routed by `dispatch(_ batch:)`, which keeps them in the inbox first.
            break
        }
    }

    /// Queues `item` for `channel`, counting it as work in flight.
    func accept(_ item: WorkItem, in channel: Channel, counted: Bool = false) {
        if !counted { tracker.begin() }
        guard !isStopping else {
            tracker.end()
            return
        }
        backlog += 1
        // A task per drain, not the receiving task itself: a handler that waits (a slow
        // send, a profile fetch) must hold up neither that task nor other conversations.
        // (`Task.immediate` would gain nothing: from inside the caller's job, the drain's
        // first hop to another actor, the outbox, wakes another thread anyway.)
        queuedSoFar += 1
        // Mutated in place, in one hash look-up: copying the lane out and back would copy
        // its queue each time.
        let action = lanes[channel, default: Lane()].push(item, stamp: queuedSoFar)
        if lanes.count > options.conversationLimit + max(1, options.conversationLimit / 8) { evictIdleLanes() }
        guard action == .startDrain else { return }
        startDrain(channel)
    }

    /// Drops the least recently used idle lanes down to `options.conversationLimit`, in one
    /// go once the lanes are an eighth over it (each lane pays the sort once). An evicted
    /// conversation's state is read from the store again when it next has work; its recent
    /// lines for a ticket start afresh.
    private func evictIdleLanes() {
        let idle = lanes.filter { $0.value.isEvictable }.map { (channel: $0.key, lastUsed: $0.value.lastUsed) }
        let excess = lanes.count - options.conversationLimit
        guard excess > 0, !idle.isEmpty else { return }
        for lane in idle.sorted(by: { $0.lastUsed < $1.lastUsed }).prefix(excess) { lanes.removeValue(forKey: lane.channel) }
    }

    /// Queues work from a timer (outside the actor): counted at once, so the host never
    /// looks idle between the timer firing and the work being queued.
    nonisolated func acceptFromTimer(_ item: WorkItem, in channel: Channel) {
        tracker.begin()
        Task { await self.accept(item, in: channel, counted: true) }
    }

    func drain(_ channel: Channel) async {
        // Bounded by the queue: each round takes one item; an empty queue ends the task.
        while let item = lanes[channel]?.next() {
            // Once stopping, a message (or reaction) waits in the inbox for the next start (its
            // sends would fail on the closed client); other items still run, as before.
            if item.isReceived, isStopping {} else { await process(item, in: channel) }
            tracker.end()
            backlog -= 1
            if backlog <= options.backlogLimit / 2 { releaseBacklogWaiter() }
            if backlog == 0 { releaseQuietWaiters() }
        }
    }

    /// Returns once no item waits in or runs from the lanes (at once if none does).
    func waitUntilQuiet() async {
        guard backlog > 0 else { return }
        await withCheckedContinuation { quietWaiters.append($0) }
    }

    func releaseQuietWaiters() {
        for waiter in quietWaiters { waiter.resume() }
        quietWaiters.removeAll()
    }

    /// Returns once every event the server delivered so far has been dispatched (queued
    /// and counted) — the first half of the host's idle check: the client has taken them
    /// (`waitUntilRelayed`), and has finished with as many as it took, this runtime's
    /// `dispatch` included (its event handler). A taken event may still be decoding or on
    /// its way to `dispatch`; the client's count covers that stretch.
    func drainInbound() async {
        await transport.waitUntilRelayed()
        guard !isStopping else { return }
        await client.waitUntilProcessed(transport.relayedEventCount)
    }

    /// True when every event the server delivered has been taken and the client has finished
    /// with it: handed to this runtime, which counts its work (if any) before the client
    /// counts it processed. Taken is not enough: a batch taken after the last
    /// `drainInbound` may still be on its way here, counted nowhere as work. Read in this
    /// order (the server's count, then what was taken, then what was processed), so an event
    /// taken meanwhile is beyond the count and answers false.
    func hasHandledEverythingDelivered() async -> Bool {
        guard transport.isCaughtUp else { return false }
        let taken = transport.relayedEventCount
        if isStopping { return true }
        return await client.processedEventCount >= taken
    }

    /// What an idle check rests on, now: for a flow test's failure message, so "nothing once
    /// the bot was idle" says what idle saw.
    func idleFigures() async -> String {
        let delivered = transport.deliveredEventCount.map { String($0()) } ?? "?"
        let handled = await client.processedEventCount
        return "\(bot.id): took \(transport.relayedEventCount) of \(delivered) events delivered, handled \(handled), \(backlog) items queued"
    }

    // MARK: - State

    func loadState(_ channel: Channel) -> ConversationState {
        if let state = lanes[channel]?.state { return leavingVanishedStep(state, channel) }
        var state = ConversationState()
        do {
            state = try store.state(bot: bot.id, channel: channel.target) ?? ConversationState()
        } catch {
            log(.error, "cannot load conversation state", ["channel": channel.target, "error": "\(error)"])
        }
        lanes[channel, default: Lane()].state = state
        return leavingVanishedStep(state, channel)
    }

    /// A conversation waiting on an `ask` whose step a reload (or a restart with changed
    /// files) removed: its flow ends, logged, and the message goes to the commands as if no
    /// flow ran. Checked where the state is read, so conversations not in memory (or not
    /// active at the reload) are covered too, at no cost to a reload.
    private func leavingVanishedStep(_ state: ConversationState, _ channel: Channel) -> ConversationState {
        guard let position = state.waiting, bot.step(position.flow, position.step)?.ask == nil else { return state }
        var left = state
        left.waiting = nil
        left.deadline = nil
        log(.warn, "flow ended: its step is gone", ["channel": channel.target, "step": position.description])
        saveState(left, channel)
        return left
    }

    /// Swaps in `bot` (the same id, changed by a reload) and the host's other bots. Runs on
    /// the actor, so no plan is half decided by the old bot and half by the new: a plan under
    /// way finishes its effects; the next item of every conversation is decided by `bot`.
    func replace(with bot: CompiledBot, peers: Set<String>) {
        precondition(bot.id == id, "a reload replaces a bot by one with the same id")
        self.bot = bot
        setPeers(peers)
    }

    /// The host's bots changed (a reload added or removed some).
    func setPeers(_ peers: Set<String>) { self.peers = peers.subtracting([client.userID]) }

    func saveState(_ state: ConversationState, _ channel: Channel) {
        guard lanes[channel]?.state != state else { return }
        // While a message is handled, its changes are written once it is done, in one write
        // with taking it out of the inbox: a crash before that handles it again, from the
        // state before it.
        guard lanes[channel, default: Lane()].cache(state) == .now else { return }
        do {
            try store.save(state == ConversationState() ? nil : state, bot: bot.id, channel: channel.target)
        } catch {
            log(.error, "cannot save conversation state", ["channel": channel.target, "error": "\(error)"])
        }
    }

    /// Notes a line `name: text` of `channel` for a later hand-off ticket.
    func remember(_ name: String, _ text: String, in channel: Channel) {
        guard options.ticketHistory > 0 else { return }
        lanes[channel, default: Lane()].recent.append(name: name, text: text, limit: options.ticketHistory)
    }

    func armTimeout(_ position: StepPosition, _ deadline: Date, in channel: Channel) {
        timer.schedule(at: deadline) { [weak self] in
            self?.acceptFromTimer(.timeout(position, deadline), in: channel)
        }
    }
}
