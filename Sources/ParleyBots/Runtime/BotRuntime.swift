import Foundation
import ParleyCore

/// One running bot: its client, its conversations' queues and state. Messages of one
/// conversation are handled strictly in order (one drain task per conversation at a time);
/// different conversations run concurrently, interleaving at their sends.
actor BotRuntime {
    let bot: CompiledBot
    let client: ChatClient
    let transport: ObservedTransport
    let store: any EngineStore
    let scheduler: Scheduler
    let tracker: IdleTracker
    let logger: EngineLogger
    let options: BotHostOptions
    let clock: any ParleyClock

    var lanes: [Channel: Lane] = [:]
    /// Users and groups known to be greeted already (saves a store round trip per message).
    var greeted: Set<String> = []
    var eventLoop: Task<Void, Never>?
    var stopping = false
    var nextMarker = 0
    var markerWaiters: [Int: CheckedContinuation<Void, Never>] = [:]

    init(bot: CompiledBot, connection: BotConnection, store: any EngineStore, scheduler: Scheduler, tracker: IdleTracker,
         logger: EngineLogger, options: BotHostOptions, clock: any ParleyClock) throws {
        self.bot = bot
        self.store = store
        self.scheduler = scheduler
        self.tracker = tracker
        self.logger = logger
        self.options = options
        self.clock = clock
        transport = ObservedTransport(connection.transport, deliveredEventCount: connection.deliveredEventCount)
        let configuration = ChatClientConfiguration(
            registry: bot.registry, storage: connection.storage, clock: clock, outbox: connection.outbox,
            profileProvider: connection.profileProvider,
            senderProfile: Profile(id: connection.transport.userID, name: bot.name, avatar: bot.avatar))
        client = try ChatClient(transport: transport, configuration: configuration)
    }

    func log(_ level: LogLevel, _ event: String, _ fields: [String: String] = [:]) {
        logger.log(level, at: clock.now(), bot: bot.id, event, fields)
    }

    // MARK: - Life cycle

    /// Subscribes, connects, and re-arms the `ask` timeouts a previous run left.
    func start() async throws {
        let events = await client.events()
        eventLoop = Task { [weak self] in
            for await event in events {
                guard let self else { return }
                await self.dispatch(event)
            }
        }
        try await client.connect()
        for (target, state) in try store.statesWithDeadline(bot: bot.id) {
            guard let channel = Channel(target: target), let position = state.waiting, let deadline = state.deadline else { continue }
            armTimeout(position, deadline, in: channel)
        }
    }

    /// Stops taking new work and closes the client (queued sends stay in its outbox).
    func stop() async {
        stopping = true
        await client.close()
        eventLoop?.cancel()
        eventLoop = nil
        for waiter in markerWaiters.values { waiter.resume() }
        markerWaiters.removeAll()
    }

    // MARK: - Inbound

    func dispatch(_ event: ChatEvent) {
        switch event {
        case .message(let message):
            guard message.sender != client.userID else { return }
            accept(.message(message), in: message.channel)
        case .membership(let membership):
            if membership.channel == ObservedTransport.markerChannel {
                markerWaiters.removeValue(forKey: Int(membership.user) ?? -1)?.resume()
            } else if membership.user == client.userID, membership.change == .joined, membership.channel.kind == .group {
                accept(.joined, in: membership.channel)
            }
        case .error(let error):
            log(.warn, "inbound error", ["error": error.description])
        case .connectionState(let state):
            log(.debug, "connection", ["state": state.rawValue])
        case .reaction:
            break
        }
    }

    /// Queues `item` for `channel`, counting it as work in flight.
    func accept(_ item: WorkItem, in channel: Channel, counted: Bool = false) {
        if !counted { tracker.begin() }
        guard !stopping else {
            tracker.end()
            return
        }
        var lane = lanes[channel] ?? Lane()
        lane.items.append(item)
        let start = !lane.running
        lane.running = true
        lanes[channel] = lane
        if start { Task { await self.drain(channel) } }
    }

    /// Queues work from a timer (outside the actor): counted at once, so the host never
    /// looks idle between the timer firing and the work being queued.
    nonisolated func acceptFromTimer(_ item: WorkItem, in channel: Channel) {
        tracker.begin()
        Task { await self.accept(item, in: channel, counted: true) }
    }

    private func drain(_ channel: Channel) async {
        // Bounded by the queue: each round takes one item; an empty queue ends the task.
        while let item = lanes[channel]?.pop() {
            await process(item, in: channel)
            tracker.end()
        }
        lanes[channel]?.running = false
    }

    /// Returns once every event the server delivered so far has been dispatched (queued
    /// and counted) — the first half of the host's idle check.
    func drainInbound() async {
        await transport.waitUntilRelayed()
        guard !stopping else { return }
        nextMarker += 1
        let number = nextMarker
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            markerWaiters[number] = continuation
            if !transport.sendMarker(number) { markerWaiters.removeValue(forKey: number)?.resume() }
        }
    }

    nonisolated var isCaughtUp: Bool { transport.isCaughtUp }

    // MARK: - State

    func loadState(_ channel: Channel) -> ConversationState {
        if let state = lanes[channel]?.state { return state }
        var state = ConversationState()
        do {
            state = try store.state(bot: bot.id, channel: channel.target) ?? ConversationState()
        } catch {
            log(.error, "cannot load conversation state", ["channel": channel.target, "error": "\(error)"])
        }
        lanes[channel, default: Lane()].state = state
        return state
    }

    func saveState(_ state: ConversationState, _ channel: Channel) {
        guard lanes[channel]?.state != state else { return }
        lanes[channel, default: Lane()].state = state
        do {
            try store.save(state == ConversationState() ? nil : state, bot: bot.id, channel: channel.target)
        } catch {
            log(.error, "cannot save conversation state", ["channel": channel.target, "error": "\(error)"])
        }
    }

    func remember(_ line: String, in channel: Channel) {
        guard options.ticketHistory > 0 else { return }
        var recent = lanes[channel]?.recent ?? []
        recent.append(line.count > 200 ? String(line.prefix(200)) + "…" : line)
        if recent.count > options.ticketHistory { recent.removeFirst(recent.count - options.ticketHistory) }
        lanes[channel, default: Lane()].recent = recent
    }

    func armTimeout(_ position: StepPosition, _ deadline: Date, in channel: Channel) {
        scheduler.schedule(at: deadline) { [weak self] in
            self?.acceptFromTimer(.timeout(position, deadline), in: channel)
        }
    }
}
