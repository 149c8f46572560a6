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

    private struct Held {
        var generation: Int64
        /// When this process must have stopped acting for the bot unless renewed: the start of
        /// the last successful renewal plus the lease, less a margin for the stop itself.
        var actUntil: ContinuousClock.Instant
        /// Taken beyond this process's share (see the type's comment): never handed over.
        var orphan = false
        /// When it was taken: a bot is handed over only once it has run here for two leases.
        var since = ContinuousClock.now
        /// True while the host is starting it (a take-over under way): not handed over then,
        /// as the host could not yet stop it.
        var starting = false
    }

    let store: LeaseStore
    let processID: String
    let bots: [String]
    let lease: Duration
    let fences: FenceBook
    private let held = Mutex<[String: Held]>([:])
    /// Bots this process could not start, with when it may take them again: two leases, so that
    /// another process can take one over as an orphan (it must have been free for a whole lease).
    private let backingOff = Mutex<[String: ContinuousClock.Instant]>([:])
    private let loops = Mutex<[PeriodicThread]>([])
    /// What the host does for changes of hands, once it can (`act`), and the bots lost before:
    /// the loops start as soon as the first leases are taken, while the host is still
    /// connecting and starting its bots (which can outlast the lease; a fresh-clone cluster test
    /// lost both first leases of a process that way), but only renew until the host can act.
    private let acting = Mutex<(actions: Actions?, lostEarly: [String])>((nil, []))
    /// What the host is doing for changes of hands (bots being started or stopped), by a
    /// number of their own; awaited by `stop`.
    private let pending = Mutex<(next: Int, tasks: [Int: Task<Void, Never>])>((0, [:]))
    /// When the database last answered a renewal round (nil: never): `/healthz` turns 503
    /// when it is older than the lease.
    private let lastRound = Mutex<ContinuousClock.Instant?>(nil)
    private let log: @Sendable (_ level: String, _ message: String, _ fields: [String: String]) -> Void

    /// The part of the lease kept back: the bot is stopped this long before the lease expires.
    var margin: Duration { lease / 5 }

    init(store: LeaseStore, processID: String, bots: [String], lease: Duration, fences: FenceBook,
         log: @escaping @Sendable (_ level: String, _ message: String, _ fields: [String: String]) -> Void) {
        self.store = store
        self.processID = processID
        self.bots = bots
        self.lease = lease
        self.fences = fences
        self.log = log
    }

    /// A name for this process, unique across the cluster and its restarts.
    static func newProcessID() -> String {
        "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier):\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// The bots held now, with their generations.
    var holdings: [String: Int64] { held.withLock { $0.mapValues(\.generation) } }

    /// True while the database answered within the last lease.
    var databaseReachable: Bool {
        guard let last = lastRound.withLock({ $0 }) else { return false }
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
        lastRound.withLock { $0 = ContinuousClock.now }
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
        let now = ContinuousClock.now
        backingOff.withLock { $0 = $0.filter { $0.value > now } }
        for bot in bots where held.withLock({ $0[bot] == nil }) && backingOff.withLock({ $0[bot] == nil }) {
            let started = ContinuousClock.now
            let orphan = held.withLock { $0.count } >= share
            guard let generation = try? store.acquire(bot, holder: processID, seconds: seconds, expiredFor: orphan ? seconds : 0) else { continue }
            fences.hold(bot, at: generation)
            held.withLock { $0[bot] = Held(generation: generation, actUntil: started + lease - margin, orphan: orphan, since: started) }
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
            let now = ContinuousClock.now
            let lapsed = held.withLock { $0.filter { $0.value.actUntil <= now }.map(\.key) }
            if !lapsed.isEmpty { lose(lapsed, why: "not renewed in time (database unreachable?)") }
        }
        loops.withLock { $0 = [renew, watchdog] }
    }

    /// From now on, changes of hands go to `actions`; the bots lost before (while the host
    /// started them) are stopped first.
    func act(_ actions: Actions) {
        let lostEarly = acting.withLock { acting in
            acting.actions = actions
            defer { acting.lostEarly = [] }
            return acting.lostEarly
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
                    held.withLock { held in
                        if held[bot]?.generation == generation { held[bot]?.actUntil = started + lease - margin }
                    }
                } else {
                    lost.append(bot)
                }
            } catch {
                answered = false  // the watchdog stops the bot if this lasts
            }
        }
        if !lost.isEmpty { lose(lost, why: "lease taken by another process") }
        guard answered, let actions = acting.withLock({ $0.actions }) else { return }
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
        held.withLock { held in for bot in taken.keys { held[bot]?.starting = true } }
        spawn { [self] in
            let started = await actions.taken(taken)
            held.withLock { held in for bot in taken.keys where held[bot]?.generation == taken[bot] { held[bot]?.starting = false } }
            // A bot whose lease was lost while it was starting (the watchdog or a renewal saw it
            // before the bot was up) is stopped again: it must not run without its lease.
            let lostMeanwhile = started.filter { bot in held.withLock { $0[bot]?.generation != taken[bot] } }
            if !lostMeanwhile.isEmpty { await actions.lost(lostMeanwhile.sorted()) }
            let failed = taken.filter { !started.contains($0.key) }
            for (bot, generation) in failed {
                // Given back at once, so another process can try (unless lost meanwhile); this one
                // leaves it alone for two leases.
                guard held.withLock({ held in
                    guard held[bot]?.generation == generation else { return false }
                    held.removeValue(forKey: bot)
                    return true
                }) else { continue }
                fences.drop(bot)
                try? store.release(bot, holder: processID, generation: generation)
                backingOff.withLock { $0[bot] = ContinuousClock.now + lease * 2 }
            }
        }
    }

    /// Runs `work` (what the host does for a change of hands) on the cooperative pool, off the
    /// loops' threads; `stop` awaits what is under way. A finished task forgets itself.
    private func spawn(_ work: @escaping @Sendable () async -> Void) {
        pending.withLock { pending in
            let id = pending.next
            pending.next += 1
            // Created under the lock, so the task's own removal (which takes it) comes after this insertion.
            pending.tasks[id] = Task { [self] in
                await work()
                _ = self.pending.withLock { $0.tasks.removeValue(forKey: id) }
            }
        }
    }

    /// Hands the bots held beyond `share` over (the last by name; never an orphan, one still
    /// starting or one taken less than two leases ago, so a bot does not move twice in a row
    /// after a restart or a database cut): each is stopped as a lost one, then its lease is
    /// given back, so a process under its share takes it at its next round.
    private func handOver(beyond share: Int) {
        let now = ContinuousClock.now
        let extra: [String] = held.withLock { held in
            let over = held.count - share
            guard over > 0 else { return [] }
            let movable = held.filter { !$0.value.orphan && !$0.value.starting && now - $0.value.since >= lease * 2 }
            return Array(movable.keys.sorted().suffix(over))
        }
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
        let gone = held.withLock { held in bots.filter { held.removeValue(forKey: $0) != nil } }
        guard !gone.isEmpty else { return }
        for bot in gone { fences.drop(bot) }
        log(level, "bots stopped: \(why)", ["bots": gone.sorted().joined(separator: ",")])
        let actions = acting.withLock { acting in
            if acting.actions == nil { acting.lostEarly += gone }
            return acting.actions
        }
        spawn {
            await actions?.lost(gone)
            then()
        }
    }

    /// Ends both loops; then gives every lease up so the others take over at once.
    func stop(releasing: Bool) async {
        let running = loops.withLock { loops in
            defer { loops = [] }
            return loops
        }
        for loop in running { await loop.stop() }
        for task in pending.withLock({ Array($0.tasks.values) }) { await task.value }
        guard releasing else { return }
        let leases = held.withLock { held in
            defer { held = [:] }
            return held
        }
        for (bot, lease) in leases {
            fences.drop(bot)
            try? store.release(bot, holder: processID, generation: lease.generation)
        }
        try? store.forget(id: processID, staleAfter: 86_400)
    }
}
