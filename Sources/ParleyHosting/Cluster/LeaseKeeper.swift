import Foundation
import ParleyStore
import Synchronization

/// This process's share of the bots on a shared PostgreSQL database: each bot (its Matrix
/// account's `/sync` loop, outbox and conversations) is run by exactly one process, the holder
/// of its lease.
///
/// The live processes that run a bot split the bots between them: each takes free bots up to its
/// fair share (the bots over the processes, rounded up), and one holding more than its share
/// (a process joined) hands the extra ones over: it stops them and gives their leases back, and
/// a process under its share takes them at its next round. A bot free for a whole lease that
/// no process under its share took (one that cannot start a bot gives it back and leaves it
/// alone for two leases) is an orphan: any process takes it, beyond its share, and keeps it.
///
/// Two loops, on threads of their own. The renewal loop talks to the database every third of the lease: it renews the
/// leases held, and takes free or expired ones (a process that died is replaced within one
/// lease). The watchdog never touches the database: a bot whose lease was not renewed in
/// time is stopped before the lease can expire, even while a database call hangs — so two
/// processes never act for one bot at once. `Fencing` stands behind it in the database.
final class LeaseKeeper: Sendable {
    /// What the host does when leases change hands: start the bots taken (returning those that
    /// started), stop the bots lost at once.
    struct Actions: Sendable {
        var taken: @Sendable ([String: Int64]) async -> Set<String>
        var lost: @Sendable ([String]) async -> Void
        /// After every round the database answered, with the bots held (maybe none): work that
        /// other processes queued for them (broadcast jobs) is picked up here, and broadcasts of
        /// bots held elsewhere are helped with.
        var held: @Sendable (Set<String>) async -> Void
    }

    /// Everything the loops and the host share, under one lock: the plan (leases held,
    /// back-offs), the loops, what the host does for changes of hands and the bots lost before
    /// it could (the loops start as soon as the first leases are taken, while the host is still
    /// connecting and starting its bots, which can outlast the lease; a fresh-clone cluster
    /// test lost both first leases of a process that way), the host's work under way for
    /// changes of hands (awaited by `stop`), and when the database last answered a round
    /// (`/healthz` turns 503 when that is older than the lease). No database call is made
    /// under it: the watchdog never waits for the database.
    private struct State {
        var plan: LeasePlan
        var loops: [PeriodicThread] = []
        var actions: Actions?
        var lostEarly: [String] = []
        var nextTask = 0
        var tasks: [Int: Task<Void, Never>] = [:]
        var lastRound: ContinuousClock.Instant?
    }

    let store: LeaseStore
    let processID: String
    let bots: [String]
    let lease: Duration
    let fences: FenceBook
    private let state: Mutex<State>
    private let log: @Sendable (_ level: String, _ message: String, _ fields: [String: String]) -> Void

    init(store: LeaseStore, processID: String, bots: [String], lease: Duration, fences: FenceBook,
         log: @escaping @Sendable (_ level: String, _ message: String, _ fields: [String: String]) -> Void) {
        self.store = store
        self.processID = processID
        self.bots = bots
        self.lease = lease
        self.fences = fences
        self.log = log
        state = Mutex(State(plan: LeasePlan(lease: lease)))
    }

    /// A name for this process, unique across the cluster and its restarts.
    static func newProcessID() -> String {
        "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier):\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// The bots held now, with their generations.
    var holdings: [String: Int64] { state.withLock { $0.plan.generations } }

    /// True while the database answered within the last lease.
    var databaseReachable: Bool {
        guard let last = state.withLock({ $0.lastRound }) else { return false }
        return ContinuousClock.now - last < lease
    }

    /// Reports this process, then takes free bots' leases up to its share: the bots to connect
    /// at start, with their generations (their fences are set).
    func takeFree() -> [String: Int64] {
        guard heartbeat() else { return [:] }
        return take(upTo: share())
    }

    /// Reports this process alive, with the bots it runs; false when the database did not answer.
    private func heartbeat() -> Bool {
        guard (try? store.heartbeat(id: processID, host: ProcessInfo.processInfo.hostName,
                                    pid: Int64(ProcessInfo.processInfo.processIdentifier), bots: bots)) != nil else { return false }
        state.withLock { $0.lastRound = ContinuousClock.now }
        return true
    }

    /// This process's fair share of the bots: a live process (seen within the lease; one that
    /// died stops counting before its leases expire, as its last report came before its last
    /// renewal) that runs any of them takes an equal part, rounded up. All of them when the
    /// count cannot be read.
    func share() -> Int {
        guard let peers = try? store.peers(sharing: bots, seenWithin: lease.timeInterval), peers > 1 else { return bots.count }
        return (bots.count + peers - 1) / peers
    }

    /// Takes free leases while this process holds fewer than `share`, and orphans beyond it.
    private func take(upTo share: Int) -> [String: Int64] {
        var taken: [String: Int64] = [:]
        let seconds = lease.timeInterval
        for bot in state.withLock({ $0.plan.candidates(among: bots, at: ContinuousClock.now) }) {
            let started = ContinuousClock.now
            let orphan = state.withLock { $0.plan.takesOrphan(share: share) }
            guard let generation = try? store.acquire(bot, holder: processID, seconds: seconds, expiredFor: orphan ? seconds : 0) else { continue }
            fences.hold(bot, at: generation)
            state.withLock { $0.plan.took(bot, generation: generation, startedAt: started, orphan: orphan) }
            taken[bot] = generation
        }
        return taken
    }

    /// Starts renewing at once and acting on changes of hands with `actions`.
    func start(_ actions: Actions) {
        startRenewing()
        act(actions)
    }

    /// Starts the two loops, each on a thread of its own (see `PeriodicThread`): right after
    /// `takeFree`, so the leases taken are renewed while the host starts. Until `act`, a round
    /// only reports and renews (nothing is taken or handed over), and a bot lost is remembered.
    func startRenewing() {
        let renew = PeriodicThread(name: "parley-lease-renewal", every: lease / 3) { [self] in round() }
        let watchdog = PeriodicThread(name: "parley-lease-watchdog", every: lease / 10) { [self] in
            let lapsed = state.withLock { $0.plan.lapsed(at: ContinuousClock.now) }
            if !lapsed.isEmpty { lose(lapsed, why: "not renewed in time (database unreachable?)") }
        }
        state.withLock { $0.loops = [renew, watchdog] }
    }

    /// From now on, changes of hands go to `actions`; the bots lost before (while the host
    /// started them) are stopped first.
    func act(_ actions: Actions) {
        let lostEarly = state.withLock { state in
            state.actions = actions
            defer { state.lostEarly = [] }
            return state.lostEarly
        }
        if !lostEarly.isEmpty { spawn { await actions.lost(lostEarly) } }
    }

    /// One renewal round: renew what is held, drop what was lost, take what is free.
    func round() {
        let seconds = lease.timeInterval
        var answered = heartbeat()
        var lost: [String] = []
        for (bot, generation) in holdings {
            let started = ContinuousClock.now
            do {
                if try store.renew(bot, holder: processID, generation: generation, seconds: seconds) {
                    state.withLock { $0.plan.renewed(bot, generation: generation, startedAt: started) }
                } else {
                    lost.append(bot)
                }
            } catch {
                answered = false  // the watchdog stops the bot if this lasts
            }
        }
        if !lost.isEmpty { lose(lost, why: "lease taken by another process") }
        guard answered, let actions = state.withLock({ $0.actions }) else { return }
        // Also with nothing held: a process standing by helps send other processes' broadcasts.
        defer { spawn { [holdings] in await actions.held(Set(holdings.keys)) } }
        let share = share()
        handOver(beyond: share)
        let taken = take(upTo: share)
        guard !taken.isEmpty else { return }
        log("info", "took over bots", ["bots": taken.keys.sorted().joined(separator: ","),
                                        "generations": taken.keys.sorted().map { String(taken[$0]!) }.joined(separator: ",")])
        // Started beside the renewal loop, not in it: connecting and starting a bot (its login,
        // the catch-up of its sync, the broadcasts it resumes) can take longer than the lease,
        // and the leases taken must be renewed meanwhile, or the watchdog stops them and the
        // next process takes them over, again and again.
        state.withLock { $0.plan.setStarting(taken, true) }
        spawn { [self] in
            let started = await actions.taken(taken)
            state.withLock { $0.plan.setStarting(taken, false) }
            // A bot whose lease was lost while it was starting (the watchdog or a renewal saw it
            // before the bot was up) is stopped again: it must not run without its lease.
            let lostMeanwhile = started.filter { bot in !state.withLock { $0.plan.holds(bot, at: taken[bot] ?? -1) } }
            if !lostMeanwhile.isEmpty { await actions.lost(lostMeanwhile.sorted()) }
            let failed = taken.filter { !started.contains($0.key) }
            for (bot, generation) in failed {
                // Given back at once, so another process can try (unless lost meanwhile); this one
                // leaves it alone for two leases.
                guard state.withLock({ $0.plan.giveBack(bot, generation: generation, at: ContinuousClock.now) }) else { continue }
                fences.drop(bot)
                try? store.release(bot, holder: processID, generation: generation)
            }
        }
    }

    /// Runs `work` (what the host does for a change of hands) on the cooperative pool, off the
    /// loops' threads; `stop` awaits what is under way. A finished task forgets itself.
    private func spawn(_ work: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            let id = state.nextTask
            state.nextTask += 1
            // Created under the lock, so the task's own removal (which takes it) comes after this insertion.
            state.tasks[id] = Task { [self] in
                await work()
                _ = self.state.withLock { $0.tasks.removeValue(forKey: id) }
            }
        }
    }

    /// Hands the bots held beyond `share` over (the last by name; never an orphan, one still
    /// starting or one taken less than two leases ago, so a bot does not move twice in a row
    /// after a restart or a database cut): each is stopped as a lost one, then its lease is
    /// given back, so a process under its share takes it at its next round.
    private func handOver(beyond share: Int) {
        let extra = state.withLock { $0.plan.handOvers(beyond: share, at: ContinuousClock.now) }
        guard !extra.isEmpty else { return }
        let generations = holdings
        lose(extra, why: "handed over to balance the cluster (a share of \(share) of \(bots.count))", level: "info") { [store, processID] in
            for bot in extra { try? store.release(bot, holder: processID, generation: generations[bot] ?? 0) }
        }
    }

    /// Stops acting for `bots` (once each, whichever loop sees it first): their fences go at
    /// once, so their stores' writes are refused from here on; the bots are stopped on the
    /// pool (or once the host can act), and `then` runs once they are.
    private func lose(_ bots: [String], why: String, level: String = "warn", then: @escaping @Sendable () -> Void = {}) {
        let (gone, actions) = state.withLock { state in
            let gone = state.plan.drop(bots)
            if state.actions == nil { state.lostEarly += gone }
            return (gone, state.actions)
        }
        guard !gone.isEmpty else { return }
        for bot in gone { fences.drop(bot) }
        log(level, "bots stopped: \(why)", ["bots": gone.sorted().joined(separator: ",")])
        spawn {
            await actions?.lost(gone)
            then()
        }
    }

    /// Ends both loops; then gives every lease up so the others take over at once.
    func stop(releasing: Bool) async {
        let running = state.withLock { state in
            defer { state.loops = [] }
            return state.loops
        }
        for loop in running { await loop.stop() }
        for task in state.withLock({ Array($0.tasks.values) }) { await task.value }
        guard releasing else { return }
        for (bot, generation) in state.withLock({ $0.plan.dropAll() }) {
            fences.drop(bot)
            try? store.release(bot, holder: processID, generation: generation)
        }
        try? store.forget(id: processID, staleAfter: 86_400)
    }
}
